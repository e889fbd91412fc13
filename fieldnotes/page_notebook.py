"""A lesson page as a Jupyter notebook: its prose as markdown cells, each executed block as a code cell
holding the snippet file itself (not a copy kept elsewhere), generated at build time."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING

from fieldnotes import cache
from fieldnotes.examples import SNIPPETS_DIR, Example

if TYPE_CHECKING:
    import nbformat

# The executed blocks as pages write them: a fence with exec="on" holding one --8<-- include.
BLOCK = re.compile(r'^```python exec="on"(?P<options>[^\n]*)\n--8<-- "(?P<snippet>[^"]+)"\n```[ \t]*$', re.MULTILINE)
_OPTION = re.compile(r'(\w+)="([^"]*)"')
_CLAIM_ATTRS = re.compile(r"\{\s*data-out=\"[^\"]*\"\s*\}")
_PAGE_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)[^)]*\)")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
RAISES_TAG = "raises-exception"  # nbclient and JupyterLab keep going past a cell with this tag


def snippets_of(markdown: str) -> list[str]:
    """The snippet files a page includes, as root-relative paths, in page order."""
    return [f"{SNIPPETS_DIR}/{m['snippet']}" for m in BLOCK.finditer(markdown)]


def block_options(markdown: str) -> dict[str, dict[str, str]]:
    """The fence options (`timeout="120"`, ...) of each snippet a page includes."""
    return {f"{SNIPPETS_DIR}/{m['snippet']}": dict(_OPTION.findall(m["options"])) for m in BLOCK.finditer(markdown)}


def fence_timeouts(markdown: str) -> dict[str, float]:
    """The snippets whose fence sets its own `timeout="SECONDS"` (it outranks the plugin's), with it."""
    return {s: float(o["timeout"]) for s, o in block_options(markdown).items() if "timeout" in o}


_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def page_notebook_json(markdown: str, root: Path, page_url: str) -> str:
    """page_notebook() as .ipynb JSON. Reused while the page, its snippets, their recorded outputs and
    this module are unchanged: making and validating it (nbformat) cost every rebuild a tenth of a second."""
    parts = [page_url, markdown]
    for snippet in snippets_of(markdown):
        parts += [(root / snippet).read_text(encoding="utf-8"), Example(root, snippet).recorded() or ""]

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
    for match in BLOCK.finditer(markdown):
        _add_prose(cells, markdown[position : match.start()])
        example = Example(root, f"{SNIPPETS_DIR}/{match['snippet']}")
        raises = "Traceback (most recent call last):" in (example.recorded() or "")
        cells.append(
            new_code_cell(
                (root / example.snippet).read_text(encoding="utf-8").rstrip("\n"),
                metadata={"tags": [RAISES_TAG]} if raises else {},
            )
        )
        position = match.end()
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
