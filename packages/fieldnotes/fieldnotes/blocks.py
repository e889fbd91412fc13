"""A page's executed blocks and diagram fences, parsed once per build (`parse`, at the plugin's
`on_files`) and read from the `Build` by every consumer: the runs, the fence, the downloads, the page
notebooks, the API index and the versions page. `record` and the shards, outside a build, parse each
page once too.

An executed block is a ```python fence whose options make markdown-exec execute it (exec="on", or any
value it takes for true) and which holds one include, `--8<-- "leaves/seed.py"`. Its options are read
with pymdownx.superfences' own grammar (`RE_OPTIONS`: double quotes, single quotes, or a bare key),
the one grammar that renders the fence. Beside markdown-exec's own, one option is the plugin's:
`timeout="SECONDS"`, which outranks the plugin's `timeout`. The block's title is its include's path
(`snippets/leaves/seed.py`) unless the fence gives one: `tag()` writes it into the fence.

`tag()` also adds a hidden option to each block's fence, `fieldnotes_block="N"`, the block's number on
the page, which the fence's formatter reads back (`BLOCK_OPTION`), so it knows the block's snippet, page
line and options without looking at the code it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pymdownx.superfences import RE_OPTIONS

from fieldnotes.examples import SNIPPETS_DIR

_FENCE = re.compile(
    r'^```python(?P<options>[ \t][^\n]*)\n--8<-- (?P<quote>["\'])(?P<snippet>[^"\'\n]+)(?P=quote)\n```[ \t]*$',
    re.MULTILINE,
)
_OFF = {"", "no", "off", "false", "0"}  # markdown-exec executes a block whose exec= is anything else
BLOCK_OPTION = "fieldnotes_block"
OWN_OPTIONS = ("timeout", BLOCK_OPTION)
"""Fence options the plugin reads and markdown-exec does not know."""

DIAGRAM_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```autograd-graph[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.MULTILINE | re.DOTALL
)
"""An ```autograd-graph fence (fieldnotes.torch.graph_fence), at any indentation (in an admonition, say)."""


def diagram_body(fence: re.Match) -> str:
    """A DIAGRAM_FENCE match's lines, without the fence's indentation."""
    return "\n".join(line.removeprefix(fence["indent"]) for line in fence["body"].splitlines())


def options_of(text: str) -> dict[str, str]:
    """A fence's options as superfences reads them: `key="v"`, `key='v'`, or a bare `key` (= "key")."""
    return {m["key"]: m["key"] if m["value"] is None else m["value"] for m in RE_OPTIONS.finditer(text)}


@dataclass(frozen=True)
class Block:
    snippet: str
    """The included file, relative to the project root: "snippets/leaves/seed.py"."""
    options: dict[str, str]
    start: int
    end: int
    """Where the fence starts and ends in the page's Markdown."""
    line: int
    """The line of its include, `--8<-- "..."`, in the page's source (1 for its first line)."""

    @property
    def timeout(self) -> float | None:
        return float(self.options["timeout"]) if "timeout" in self.options else None

    @property
    def title(self) -> str:
        """What the block's title shows: the fence's `title=`, else its include's path."""
        return self.options.get("title", self.snippet)


@dataclass(frozen=True)
class Page:
    """One page's source, parsed."""

    markdown: str
    """The page's source, front matter included: the offsets and lines below are in it."""
    blocks: list[Block] = field(default_factory=list)
    diagrams: list[str] = field(default_factory=list)
    """Each ```autograd-graph fence's body, unindented, in page order."""

    @property
    def snippets(self) -> list[str]:
        """The snippet files the page includes in executed blocks, in page order."""
        return [block.snippet for block in self.blocks]


def parse(markdown: str) -> Page:
    """The page's executed blocks and diagram fences, in page order."""
    found = []
    for match in _FENCE.finditer(markdown):
        options = options_of(match["options"])
        if options.get("exec", "").lower() not in _OFF:
            line = markdown.count("\n", 0, match.start()) + 2
            found.append(Block(f"{SNIPPETS_DIR}/{match['snippet']}", options, match.start(), match.end(), line))
    diagrams = [diagram_body(fence) for fence in DIAGRAM_FENCE.finditer(markdown)]
    return Page(markdown, found, diagrams)


def tag(markdown: str, page: Page) -> str:
    """The page's Markdown (as MkDocs hands it to plugins: `page.markdown` without its front matter)
    with each executed block's fence carrying its number (`fieldnotes_block="N"`, from 0) and its
    title, its include's path unless it has one."""
    offset = len(page.markdown) - len(markdown)
    parts, position = [], 0
    for number, block in enumerate(page.blocks):
        fence_line_end = markdown.index("\n", block.start - offset)
        title = "" if "title" in block.options else f' title="{block.snippet}"'
        parts += [markdown[position:fence_line_end], f' {BLOCK_OPTION}="{number}"{title}']
        position = fence_line_end
    parts.append(markdown[position:])
    return "".join(parts)
