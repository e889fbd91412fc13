"""The executed blocks of a page's Markdown, parsed in one place for the plugin, `record` and the page
notebooks.

An executed block is a ```python fence whose options include exec="on" (anywhere among them, and any
value markdown-exec takes for true) and which holds one include, `--8<-- "leaves/seed.py"`. Its options
beside markdown-exec's own: `timeout="SECONDS"`, which outranks the plugin's `timeout`.

A block is parsed once, from the page's Markdown, before pymdownx.snippets replaces the include with the
file's content: `tag()` adds a hidden option to its fence, `fieldnotes_block="N"`, the block's number on
the page, which the fence's formatter reads back (`BLOCK_OPTION`), so it knows the block's snippet, page
line and options without looking at the code it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from fieldnotes.examples import SNIPPETS_DIR

_FENCE = re.compile(r'^```python(?P<options>[ \t][^\n]*)\n--8<-- "(?P<snippet>[^"]+)"\n```[ \t]*$', re.MULTILINE)
_OPTION = re.compile(r'(\w+)="([^"]*)"')
_OFF = {"", "no", "off", "false", "0"}  # markdown-exec executes a block whose exec= is anything else
BLOCK_OPTION = "fieldnotes_block"
OWN_OPTIONS = ("timeout", BLOCK_OPTION)
"""Fence options the plugin reads and markdown-exec does not know."""


@dataclass(frozen=True)
class Block:
    snippet: str
    """The included file, relative to the project root: "snippets/leaves/seed.py"."""
    options: dict[str, str]
    start: int
    end: int
    """Where the fence starts and ends in the page's Markdown."""
    line: int
    """The line of its include, `--8<-- "..."`, in the Markdown given (1 for its first line)."""

    @property
    def timeout(self) -> float | None:
        return float(self.options["timeout"]) if "timeout" in self.options else None


def blocks(markdown: str) -> list[Block]:
    """The page's executed blocks, in page order."""
    found = []
    for match in _FENCE.finditer(markdown):
        options = dict(_OPTION.findall(match["options"]))
        if options.get("exec", "").lower() not in _OFF:
            line = markdown.count("\n", 0, match.start()) + 2
            found.append(Block(f"{SNIPPETS_DIR}/{match['snippet']}", options, match.start(), match.end(), line))
    return found


def tag(markdown: str) -> tuple[str, list[Block]]:
    """The page with each executed block's fence carrying its number (`fieldnotes_block="N"`), and the
    blocks, numbered from 0."""
    found = blocks(markdown)
    parts, position = [], 0
    for number, block in enumerate(found):
        fence_line_end = markdown.index("\n", block.start)
        parts += [markdown[position:fence_line_end], f' {BLOCK_OPTION}="{number}"']
        position = fence_line_end
    parts.append(markdown[position:])
    return "".join(parts), found


def snippets_of(markdown: str) -> list[str]:
    """The snippet files a page includes in executed blocks, as root-relative paths, in page order."""
    return [block.snippet for block in blocks(markdown)]


def timeouts(pages: Iterable[str], default: float) -> dict[str, float]:
    """Each snippet the pages include, with its time limit: its fence's own `timeout=`, else `default`."""
    limits: dict[str, float] = {}
    for markdown in pages:
        for block in blocks(markdown):
            limits[block.snippet] = block.timeout if block.timeout is not None else default
    return limits
