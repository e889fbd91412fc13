"""What a reader can download: every snippet file and helper (each block's title links to its file),
and each page's examples as one notebook (`fieldnotes.render.page_notebook`), linked under the page's heading."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

from fieldnotes.blocks import Page
from fieldnotes.build_state import Build
from fieldnotes.examples import snippets_dir
from fieldnotes.features import Feature
from fieldnotes.render.page_notebook import page_notebook, page_notebook_json


class Downloads(Feature):
    order = 60

    def __init__(self, build: Build) -> None:
        self.build = build
        self.notebooks: dict[str, str] = {}
        """A page's source -> its notebook's path in the site."""

    def on_files(self, files, config) -> None:
        root = self.build.root
        for example in self.build.examples:
            files.append(File.generated(config, example.snippet, abs_src_path=str(root / example.snippet)))
        for helper in sorted((root / snippets_dir(root)).rglob("_*.py")):  # what a snippet imports, downloadable too
            uri = helper.relative_to(root).as_posix()
            files.append(File.generated(config, uri, abs_src_path=str(helper)))
        for page_uri, page in self.build.pages.items():
            included = page.snippets
            # A missing include is reported, file named, by pymdownx.snippets when the page renders.
            if included and all((root / s).is_file() for s in included):
                notebook_uri = f"notebooks/{page_uri.removesuffix('.md').replace('/', '-')}.ipynb"
                notebook = self._notebook(page, page_uri, config.site_url or "", Path(config.docs_dir))
                files.append(File.generated(config, notebook_uri, content=notebook))
                self.notebooks[page_uri] = notebook_uri
        self.build.notebooks.update(self.notebooks)

    def _notebook(self, page: Page, page_uri: str, site_url: str, docs_dir: Path) -> str:
        options = {
            "site_url": site_url,
            "diagrams": self.build.diagrams,
            "docs_dir": docs_dir,
            "printed_by": self.build.printed_by,
        }
        if self.build.store.reuse:
            return page_notebook_json(self.build.store, page, page_uri, **options)
        import nbformat  # page_notebook_json's own reuse is off with the plugin's `cache: false`

        return nbformat.writes(page_notebook(page, self.build.root, page_uri, **options))

    def on_page_markdown(self, markdown: str, page, config=None, files=None) -> str:
        notebook = self.notebooks.get(page.file.src_uri)
        if not notebook:
            return markdown
        link = posixpath.relpath(notebook, posixpath.dirname(page.file.src_uri) or ".")
        return re.sub(
            r"^(# .*)$",
            rf"\1\n\n[Download this page's examples as a notebook (.ipynb)]({link})"
            r"{ .download-notebook download data-search-exclude }",
            markdown,
            count=1,
            flags=re.MULTILINE,
        )
