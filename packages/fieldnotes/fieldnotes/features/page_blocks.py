"""The pages' executed blocks under MkDocs: the Markdown extension (`fieldnotes.extension`) runs, checks
and renders them and checks the claims; this feature gives it the build (whose problems are warnings,
which fail the strict build), starts every run ahead of time so they run while MkDocs reads the pages
(`fieldnotes.runs.Runs.start`), and tells MkDocs the ids the blocks' titles got."""

from __future__ import annotations

from fieldnotes.build_state import Build
from fieldnotes.examples import Example
from fieldnotes.runs import run_order

EXTENSION = "fieldnotes.extension"


class PageBlocks:
    """The executed blocks of one build."""

    def __init__(self, build: Build) -> None:
        self.build = build

    def on_config(self, config) -> None:
        """The extension, after every other (pymdownx.superfences first), with this build."""
        self.build.warn = True
        if EXTENSION not in config.markdown_extensions:
            config.markdown_extensions.append(EXTENSION)
        config.mdx_configs.setdefault(EXTENSION, {})["build"] = self.build

    def start(self, examples: list[Example]) -> None:
        """Start every run now (or take its stored one): each page's blocks in page order, before the next
        page's (MkDocs renders each page as soon as its runs are done), then the examples no page shows."""
        self.build.runs.start(examples, run_order(self.build.pages.values(), examples, self.build.config.timeout))

    def on_page_content(self, html_text: str, page) -> str:
        if page.present_anchor_ids is not None:  # MkDocs checks links to anchors against these
            ids = self.build.page_ids.pop(self.build.page_path, [])
            page.present_anchor_ids.update(name if times == 1 else f"{name}-{times}" for name, times in ids)
        return html_text
