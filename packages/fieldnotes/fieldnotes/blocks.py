"""What an executed block is, read two ways.

`describe()` is the one that decides, in the fence's formatter (`fieldnotes.extension`): from the fence's
options and the source text superfences hands it, with the includes pymdownx.snippets expanded on the
page, it says which snippet file the block runs, under which time limit, titled how. `parse()` reads a
page's source once per build (`Build.pages`, at the plugin's `on_files`), for what must be known before a
page renders: which runs to start ahead of time, the downloads, the page notebooks, the API index and the
versions page. `record` and the shards, outside a build, parse each page once too.

An executed block is a ```python fence whose options make markdown-exec execute it (exec="on", or any
value it takes for true), at any indentation (in an admonition, a content tab, a list), and which holds
one include, `--8<-- "leaves/seed.py"`. Its options are read with pymdownx.superfences' own grammar
(`RE_OPTIONS`: double quotes, single quotes, or a bare key), the one grammar that renders the fence.
Beside markdown-exec's own, one option is the plugin's: `timeout="SECONDS"`, which outranks the plugin's
`timeout`. The block's title is its include's path (`snippets/leaves/seed.py`) unless the fence gives one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pymdownx.superfences import RE_OPTIONS

from fieldnotes.examples import DEFAULT_SNIPPETS

_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```python(?P<options>[ \t][^\n]*)\n"
    r'(?P=indent)--8<-- (?P<quote>["\'])(?P<snippet>[^"\'\n]+)(?P=quote)\n(?P=indent)```[ \t]*$',
    re.MULTILINE,
)
_OFF = {"", "no", "off", "false", "0"}  # markdown-exec executes a block whose exec= is anything else
OWN_OPTIONS = ("timeout",)
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
    line: int
    """The line of its include, `--8<-- "..."`, in the page's source (1 for its first line; 0: unknown)."""
    start: int = 0
    end: int = 0
    """Where the fence starts and ends in the page's Markdown (`parse` only)."""

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


def executes(options: dict[str, str]) -> bool:
    """Whether markdown-exec would execute a fence with these options."""
    return options.get("exec", "").lower() not in _OFF


def parse(markdown: str, snippets: str = DEFAULT_SNIPPETS) -> Page:
    """The page's executed blocks and diagram fences, in page order; `snippets` is the folder its includes
    are read from (`fieldnotes.config.snippets_dir`)."""
    found = []
    for match in _FENCE.finditer(markdown):
        options = options_of(match["options"])
        if executes(options):
            line = markdown.count("\n", 0, match.start()) + 2
            snippet = f"{snippets}/{match['snippet']}"
            found.append(Block(snippet, options, line, match.start(), match.end()))
    diagrams = [diagram_body(fence) for fence in DIAGRAM_FENCE.finditer(markdown)]
    return Page(markdown, found, diagrams)


@dataclass
class Include:
    """One `--8<-- "path"` of a page, as pymdownx.snippets expanded it."""

    file: str
    """The included file, relative to the project root: "snippets/leaves/seed.py"."""
    section: str | None
    """`--8<-- "file.py:name"`'s section name; None for the whole file."""
    text: str
    """What it expanded to, without the include's indentation."""
    line: int
    """Its line in the page's source (0: unknown)."""
    taken: bool = False
    """Whether a block was already described by it: each include is one block's at most."""


def _same_code(a: str, b: str) -> bool:
    return a.strip("\n").expandtabs(4) == b.strip("\n").expandtabs(4)


def describe(source: str, options: dict[str, str], includes: list[Include]) -> Block | None:
    """The block a fence with these options and this source is: the page's first include not yet taken
    that expanded to exactly this source, a whole file (two files with the same code are told apart by
    their order on the page). None when no include made it (code written in the fence)."""
    for include in includes:
        if not include.taken and include.section is None and _same_code(include.text, source):
            include.taken = True
            return Block(include.file, options, include.line)
    return None
