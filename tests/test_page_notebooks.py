"""Each lesson page's examples, downloadable as one notebook, generated at build time from the snippet
files: the cells are those files in page order, and the notebook runs top to bottom on its own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from pytest_examples import find_examples

from fieldnotes import cache
from fieldnotes.page_notebook import RAISES_TAG
from tests.conftest import REUSE_RUNS, ROOT, Project, block, reader_run_kind

KIND = reader_run_kind("page notebook", __file__)
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')


def executed_snippets(page: Path) -> list[str]:
    """The snippet files a page's executed blocks include, in page order, read with pytest-examples (not
    with the plugin's parser): every python fence whose options say exec="on", wherever it says so."""
    found = []
    for example in find_examples(page):
        if example.prefix_settings().get("exec") == "on":
            found.append(f"snippets/{INCLUDE.match(example.source.strip())['path']}")
    return found


PAGES = [p for p in sorted((ROOT / "docs").rglob("*.md")) if executed_snippets(p)]


def notebook_of(site, page) -> nbformat.NotebookNode:
    name = page.relative_to(ROOT / "docs").as_posix().removesuffix(".md").replace("/", "-")
    return nbformat.reads((site / "notebooks" / f"{name}.ipynb").read_text(), as_version=4)


def cells_for(snippet: str) -> list[str]:
    """The snippet file as a cell, after a `%%writefile` cell for each helper beside it that it names (so
    the downloaded notebook runs without the rest of the repository)."""
    code = (ROOT / snippet).read_text()
    helpers = [
        h
        for h in sorted((ROOT / snippet).parent.glob("_*.py"))
        if f"import {h.stem}" in code or f"from {h.stem} import" in code
    ]
    return [f"%%writefile {h.name}\n{h.read_text().rstrip()}" for h in helpers] + [code.rstrip("\n")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_cells_are_the_pages_snippets(built_site, page):
    """Catches a notebook whose cells are not the page's snippet files, in page order, or that lacks a
    helper a snippet imports (the rules page's _programs.py)."""
    notebook = notebook_of(built_site, page)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code == [cell for s in executed_snippets(page) for cell in cells_for(s)]
    folder = page.relative_to(ROOT / "docs").with_suffix("")
    folder = folder.parent if folder.name == "index" else folder  # docs/index.md is the site's index.html
    page_html = (built_site / folder / "index.html").read_text()
    assert "Download this page's examples as a notebook (.ipynb)" in page_html


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_runs_top_to_bottom(built_site, page, tmp_path):
    """In a fresh kernel, in an empty folder, as a reader runs a download. nbclient stops at the first
    error, except in cells tagged as raising on purpose; those must raise. Catches a notebook cell that
    errors (a snippet that needs state another page's cell made, or a helper file it imports), and a
    raising cell without its tag."""
    notebook = notebook_of(built_site, page)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    expected = [RAISES_TAG in c.metadata.get("tags", []) for c in code]
    # A passing run is remembered until the notebook, a helper or anything installed changes (fieldnotes.cache).
    key = cache.content_key(ROOT, KIND, nbformat.writes(notebook).encode())
    if REUSE_RUNS and (cache.load_data(ROOT, key) or {}).get("raised") == expected:
        return
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    raised = [any(o.output_type == "error" for o in c.outputs) for c in code]
    for cell, did, should in zip(code, raised, expected, strict=True):
        assert did == should, f"{page.name}: cell {json.dumps(cell.source[:60])} raised={did}"
    cache.store_data(ROOT, key, {"page": page.name, "raised": raised})


def test_a_block_with_its_options_in_another_order_is_in_the_notebook(project: Project):
    """Catches a notebook that drops an executed block whose exec="on" is not its first option (the page
    runs and shows it all the same)."""
    project.snippet("first.py", "print(1)\n", recorded="1\n")
    project.snippet("second.py", "print(2)\n", recorded="2\n")
    reordered = '```python title="snippets/second.py" result="text" exec="on" source="above"\n--8<-- "second.py"\n```\n'
    project.page("index.md", "# Page\n\n" + block("first.py") + "\n" + reordered)
    result = project.build()
    assert result.returncode == 0, result.stderr
    notebook = nbformat.reads((project.path / "site" / "notebooks" / "index.ipynb").read_text(), as_version=4)
    assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["print(1)", "print(2)"]
    assert executed_snippets(project.path / "docs" / "index.md") == ["snippets/first.py", "snippets/second.py"]
