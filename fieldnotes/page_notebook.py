"""A lesson page as a Jupyter notebook: its prose as markdown cells, each executed block as a code cell
holding the snippet file itself (not a copy kept elsewhere), generated at build time."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from fieldnotes import cache
from fieldnotes.blocks import blocks, snippets_of
from fieldnotes.examples import SNIPPETS_DIR, Example

if TYPE_CHECKING:
    import nbformat

_CLAIM_ATTRS = re.compile(r"\{\s*data-out=\"[^\"]*\"\s*\}")
_PAGE_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)[^)]*\)")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
RAISES_TAG = "raises-exception"  # nbclient and JupyterLab keep going past a cell with this tag


def helpers_of(snippet: Path) -> list[Path]:
    """The `_*.py` helper files beside a snippet that it imports (`from _programs import ...`)."""
    names = re.findall(r"^(?:from|import) (_\w+)", snippet.read_text(encoding="utf-8"), re.MULTILINE)
    return [snippet.parent / f"{name}.py" for name in dict.fromkeys(names) if (snippet.parent / f"{name}.py").is_file()]


_CODE = cache.code_digest(__file__)


def page_notebook_json(markdown: str, root: Path, page_url: str) -> str:
    """page_notebook() as .ipynb JSON. Reused while the page, its snippets, their recorded outputs, the
    helpers they import and this module are unchanged: making and validating it (nbformat) cost every
    rebuild a tenth of a second."""
    parts = [page_url, markdown]
    for snippet in snippets_of(markdown):
        parts += [(root / snippet).read_text(encoding="utf-8"), Example(root, snippet).recorded() or ""]
        parts += [helper.read_text(encoding="utf-8") for helper in helpers_of(root / snippet)]

    def write() -> dict:
        import nbformat

        return {"ipynb": nbformat.writes(page_notebook(markdown, root, page_url))}

    return cache.memo(root, f"page notebook {_CODE}", "\0".join(parts).encode(), write)["ipynb"]


def page_notebook(markdown: str, root: Path, page_url: str) -> nbformat.NotebookNode:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    markdown = _FRONT_MATTER.sub("", markdown)
    cells = [
        new_markdown_cell(
            f"*The examples of {page_url}, in page order. Each code cell is one file of the site's "
            f"`{SNIPPETS_DIR}/` folder; the outputs on the page were printed by running exactly these.*"
        )
    ]
    position = 0
    for block in blocks(markdown):
        _add_prose(cells, markdown[position : block.start])
        example = Example(root, block.snippet)
        raises = "Traceback (most recent call last):" in (example.recorded() or "")
        for helper in helpers_of(root / example.snippet):  # so the notebook runs on its own
            code = helper.read_text(encoding="utf-8").rstrip("\n")
            cells.append(new_code_cell(f"%%writefile {helper.name}\n{code}"))
        cells.append(
            new_code_cell(
                (root / example.snippet).read_text(encoding="utf-8").rstrip("\n"),
                metadata={"tags": [RAISES_TAG]} if raises else {},
            )
        )
        position = block.end
    _add_prose(cells, markdown[position:])
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"  # nbformat's default is random: the same page must give the same file
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _add_prose(cells: list, text: str) -> None:
    from nbformat.v4 import new_markdown_cell

    # Claim markers are for the build; links to other pages do not resolve inside a notebook.
    text = _PAGE_LINK.sub(r"\1", _CLAIM_ATTRS.sub("", text)).strip()
    if text:
        cells.append(new_markdown_cell(text))
