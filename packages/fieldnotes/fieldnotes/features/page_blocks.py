"""The pages' executed blocks under MkDocs: the Markdown extension (`fieldnotes.extension`) runs, checks
and renders them and checks the claims; this feature gives it the build (whose problems are warnings,
which fail the strict build), starts every run ahead of time so they run while MkDocs reads the pages
(`fieldnotes.runs.Runs.start`), and tells MkDocs the ids the blocks' titles got."""

from __future__ import annotations

from fieldnotes import blocks
from fieldnotes.build_state import Build
from fieldnotes.examples import project_examples, snippets_dir
from fieldnotes.features import Feature
from fieldnotes.runs import run_order

EXTENSION = "fieldnotes.extension"


class PageFiles(Feature):
    """Reads the pages first, for every feature after it: each page parsed once (`build.pages`), and the
    project's examples (`build.examples`). A page's recorded outputs (page.md.out) are not pages."""

    order = 0

    def __init__(self, build: Build) -> None:
        self.build = build

    def on_files(self, files, config) -> None:
        for recorded in [f for f in files if f.src_uri.endswith(".md.out")]:
            files.remove(recorded)
        snippets = snippets_dir(self.build.root)
        pages = files.documentation_pages()
        self.build.pages = {page.src_uri: blocks.parse(page.content_string, snippets) for page in pages}
        self.build.examples = project_examples(self.build.root)


class PageBlocks(Feature):
    """The executed blocks of one build."""

    order = 40  # after the diagrams' and the notebooks' runs are submitted: those pages wait for them

    def __init__(self, build: Build) -> None:
        self.build = build

    def on_config(self, config) -> None:
        """The extension, after every other (pymdownx.superfences first), with this build; markdown-exec's
        own fences for Python give way to it."""
        self.build.warn = True
        if EXTENSION not in config.markdown_extensions:
            config.markdown_extensions.append(EXTENSION)
        config.mdx_configs.setdefault(EXTENSION, {})["build"] = self.build
        fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        fences[:] = [f for f in fences if f["name"] not in ("py", "python")]

    def on_files(self, files, config) -> None:
        """Start every run now (or take its stored one): each page's blocks in page order, before the next
        page's (MkDocs renders each page as soon as its runs are done), then the examples no page shows."""
        if self.build.config.execute:
            examples = self.build.examples
            self.build.runs.start(examples, run_order(self.build.pages.values(), examples, self.build.config.timeout))

    def on_page_content(self, html_text: str, page, config=None, files=None) -> str:
        if page.present_anchor_ids is not None:  # MkDocs checks links to anchors against these
            ids = self.build.page_ids.pop(self.build.page_path, [])
            page.present_anchor_ids.update(name if times == 1 else f"{name}-{times}" for name, times in ids)
        return html_text
