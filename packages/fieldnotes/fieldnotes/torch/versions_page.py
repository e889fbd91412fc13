"""The site's torch versions page (docs/versions.md) and, beside each output, what a committed drift report
says another torch prints instead (the logic, with no MkDocs in it, is fieldnotes/versions.py)."""

from __future__ import annotations

from mkdocs.utils import get_relative_url

from fieldnotes.build_state import Build
from fieldnotes.features import Feature
from fieldnotes.torch import versions


class VersionsPage(Feature):
    """The versions page, and a note after each block whose output another torch prints differently."""

    order = 65

    def __init__(self, build: Build) -> None:
        self.build = build
        build.block_notes.append(self.note)
        self.verdicts = versions.Verdicts(build.root, versions.load_reports(build.root))
        """The committed reports (versions/*.json) and their verdicts, read once per build."""

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        if page.file.src_uri != self.build.config.versions.page:
            return markdown
        by_page = {uri: parsed.snippets for uri, parsed in self.build.pages.items()}
        printed_by = self.build.printed_by.removeprefix("torch ")
        return versions.page_markdown(self.verdicts, markdown, by_page, printed_by)

    def note(self, snippet: str, page) -> str:
        """The HTML that follows the example's block on `page`: empty unless a report differs."""
        url = get_relative_url(self.build.config.versions.page.removesuffix(".md") + "/", page.url)
        return versions.note_html(self.verdicts, snippet, url)
