"""The executed blocks of a page's Markdown, read in one place for the plugin, `record` and the page notebooks.

An executed block is a ```python fence whose options include exec="on" (anywhere among them, as
markdown-exec reads them) and which holds one include, `--8<-- "leaves/seed.py"`. Its options beside
markdown-exec's own: `timeout="SECONDS"`, which outranks the plugin's `timeout`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from fieldnotes.examples import SNIPPETS_DIR

_FENCE = re.compile(r'^```python(?P<options>[ \t][^\n]*)\n--8<-- "(?P<snippet>[^"]+)"\n```[ \t]*$', re.MULTILINE)
_OPTION = re.compile(r'(\w+)="([^"]*)"')
_ON = {"on", "yes", "true", "1"}  # what markdown-exec takes for exec="on"
OWN_OPTIONS = ("timeout",)
"""Fence options the plugin reads and markdown-exec does not know."""


@dataclass(frozen=True)
class Block:
    snippet: str
    """The included file, relative to the project root: "snippets/leaves/seed.py"."""
    options: dict[str, str]
    start: int
    end: int
    """Where the fence starts and ends in the page's Markdown."""

    @property
    def timeout(self) -> float | None:
        return float(self.options["timeout"]) if "timeout" in self.options else None


def blocks(markdown: str) -> list[Block]:
    """The page's executed blocks, in page order."""
    found = []
    for match in _FENCE.finditer(markdown):
        options = dict(_OPTION.findall(match["options"]))
        if options.get("exec", "").lower() in _ON:
            found.append(Block(f"{SNIPPETS_DIR}/{match['snippet']}", options, match.start(), match.end()))
    return found


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
