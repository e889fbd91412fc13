"""Each lesson page's examples, downloadable as one notebook, generated at build time from the snippet
files: the cells are those files in page order, and the notebook runs top to bottom on its own."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from nbclient import NotebookClient

from fieldnotes.page_notebook import RAISES_TAG, snippets_of
from tests.conftest import ROOT

PAGES = [p for p in sorted((ROOT / "docs").rglob("*.md")) if snippets_of(p.read_text())]


def notebook_of(site, page) -> nbformat.NotebookNode:
    name = page.relative_to(ROOT / "docs").as_posix().removesuffix(".md").replace("/", "-")
    return nbformat.reads((site / "notebooks" / f"{name}.ipynb").read_text(), as_version=4)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_cells_are_the_pages_snippets(built_site, page):
    notebook = notebook_of(built_site, page)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code == [(ROOT / s).read_text().rstrip("\n") for s in snippets_of(page.read_text())]
    page_html = (built_site / page.relative_to(ROOT / "docs").with_suffix("") / "index.html").read_text()
    assert "Download this page's examples as a notebook (.ipynb)" in page_html


@pytest.fixture(scope="module")
def executed(built_site) -> dict:
    def run(page):
        notebook = notebook_of(built_site, page)
        resources = {"metadata": {"path": str(ROOT)}}
        client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources)
        client.execute()
        return notebook

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(PAGES, pool.map(run, PAGES), strict=True))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_runs_top_to_bottom(executed, page):
    """nbclient stops at the first error, except in cells tagged as raising on purpose; those must raise."""
    for cell in executed[page].cells:
        if cell.cell_type != "code":
            continue
        raised = any(o.output_type == "error" for o in cell.outputs)
        expected = RAISES_TAG in cell.metadata.get("tags", [])
        assert raised == expected, f"{page.name}: cell {json.dumps(cell.source[:60])} raised={raised}"
