"""The pages mkdocs-jupyter renders from the jupytext notebooks (docs/exercise/*.py): the plugin's
`notebook_pages` feature. It

- offers each notebook for download next to its page, as the jupytext `.py` it is kept as and as an
  `.ipynb` converted at build time; both are added to the site's files, so MkDocs copies them and
  the link check knows them;
- gives the page the notebook's `description` metadata as its <meta name="description">;
- slims the page's HTML (`fieldnotes.features.notebook_html`).

A rebuild reuses what it made of an unchanged notebook and page: converting and slimming cost more
than the rest of the build. Each key covers this module's code, or the slimming module's.
"""

from __future__ import annotations

import json
import posixpath

import jupytext
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File

from fieldnotes import cache
from fieldnotes.build_state import Build
from fieldnotes.features import Feature, notebook_html

log = get_plugin_logger("notebook_hooks")

_CODE = cache.code_digest(__file__, notebook_html.__file__)


def page_directory(src_uri: str, use_directory_urls: bool) -> str:
    """The folder the page built from `src_uri` lands in: its relative links resolve from there."""
    stem, _ = posixpath.splitext(src_uri)
    if use_directory_urls and posixpath.basename(stem) != "index":
        return stem
    return posixpath.dirname(src_uri) or "."


def to_ipynb(percent_source: str, printed_by: str = "") -> str:
    """The jupytext percent-format notebook as .ipynb JSON, without outputs; given `printed_by` ("torch
    2.13.0"), a first cell says that it printed the page's outputs."""
    notebook = jupytext.reads(percent_source, fmt="py:percent")
    if printed_by:
        note = f"*The outputs on this notebook's page were printed by {printed_by}; another release may print "
        note += "differently.*"
        notebook.cells.insert(0, jupytext.reads(note, fmt="md").cells[0])
    for number, cell in enumerate(notebook.cells, start=1):
        cell.id = f"cell-{number}"  # jupytext's are random: the same notebook must give the same file
    return jupytext.writes(notebook, fmt="ipynb")


class NotebookPages(Feature):
    order = 20  # before mkdocs-jupyter's runs start (fieldnotes.integrations.notebook_runs)

    def __init__(self, build: Build, jupyter_plugin) -> None:
        self.build = build
        self.jupyter = jupyter_plugin
        self.ipynb: dict[str, str] = {}
        """A notebook page's source -> its .ipynb download's path in the site."""

    def _ipynb(self, percent_source: str) -> str:
        printed_by = self.build.printed_by
        convert = lambda: {"ipynb": to_ipynb(percent_source, printed_by)}  # noqa: E731
        key = f"{printed_by}\0{percent_source}".encode()
        return self.build.store.memo(f"notebook ipynb {_CODE}", key, convert)["ipynb"]

    def on_files(self, files, config):
        """Before mkdocs-jupyter turns each notebook into a page: its two downloads."""
        for file in list(files):
            if not self.jupyter.should_include(file):
                continue
            directory = page_directory(file.src_uri, config.use_directory_urls)
            stem = posixpath.splitext(posixpath.basename(file.src_uri))[0]
            source = file.content_string
            files.append(File.generated(config, f"{directory}/{stem}.py", content=source))
            files.append(File.generated(config, f"{directory}/{stem}.ipynb", content=self._ipynb(source)))
            self.ipynb[file.src_uri] = f"{directory}/{stem}.ipynb"
        self.build.notebooks.update(self.ipynb)

    def on_page_content(self, html, page, config=None, files=None):
        if not self.jupyter.should_include(page.file):
            return html
        # A notebook has no front matter: its page description is the notebook's `description`
        # metadata (in the jupytext header: jupyter: description: ...).
        notebook = json.loads(self._ipynb(page.file.content_string))
        description = notebook["metadata"].get("description")
        if description:
            page.meta["description"] = description
        else:
            log.warning(f"{page.file.src_uri}: no `description` in the notebook's metadata (jupytext header)")

        def slim() -> dict:
            slim_html, problems = notebook_html.slim_notebook_html(html)
            return {"html": slim_html, "problems": problems}

        slimmed = self.build.store.memo(f"notebook page {_CODE}", html.encode(), slim)
        for problem in slimmed["problems"]:  # a reused page reports them again: the strict build still fails
            log.warning(f"{page.file.src_uri}: {problem}")
        return slimmed["html"]
