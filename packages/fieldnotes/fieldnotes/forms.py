"""Which executed blocks fieldnotes checks, read from markdown-exec's own options (as its `validator`
leaves them: `exec=` on, 1, true or yes; `html`, a bool; `result`, `source`, `session`, strings).

fieldnotes checks a Python block (`python`, `py`, `pycon`) whose output is shown as text: in a code block
of any language (`result="text"`, `"python"`, `"console"`, `"pycon"`...), or after its source in a
console block (`source="console"`). The others it leaves to markdown-exec, unchanged, and names once per
build (`Unchecked`): another language's blocks, and blocks whose output is inserted as HTML (`html="1"`)
or as Markdown (no `result=`), which are pages' content rather than an output to compare.

What runs is what markdown-exec runs: a pycon block's `>>>` and `...` lines without their prompts; lines
marked `# markdown-exec: hide` run too (markdown-exec hides them from the shown source only).
"""

from __future__ import annotations

from collections import defaultdict

PYTHON = ("python", "py", "pycon")


def unchecked_because(language: str, options: dict) -> str | None:
    """None if fieldnotes checks this executed block; else the kind of block it leaves to markdown-exec,
    as the build's note names it."""
    if language not in PYTHON:
        return f"{language} blocks"
    if options.get("html"):
        return "blocks whose output is HTML (html=)"
    if not options.get("result") and options.get("source") != "console":
        return "blocks whose output is Markdown (no result=)"
    return None


def code_to_run(language: str, code: str) -> str:
    """What markdown-exec executes of a block's code: a pycon block's prompted lines, without prompts."""
    if language != "pycon":
        return code
    return "\n".join(line[4:] for line in code.split("\n") if line.startswith((">>> ", "... ")))


class Unchecked:
    """The executed blocks a build leaves to markdown-exec, said once, at its end (`note`)."""

    def __init__(self) -> None:
        self.blocks: dict[str, list[str]] = defaultdict(list)
        """Where each kind's blocks are: "docs/page.md:12"."""

    def add(self, kind: str, where: str) -> None:
        self.blocks[kind].append(where)

    def note(self) -> str | None:
        """One sentence for the build's log; None if fieldnotes checked every executed block."""
        if not self.blocks:
            return None
        count = sum(len(places) for places in self.blocks.values())
        kinds = "; ".join(
            f"{kind}: {len(places)} ({', '.join(places[:3])}{', ...' if len(places) > 3 else ''})"
            for kind, places in sorted(self.blocks.items())
        )
        return f"fieldnotes left {count} executed block{'s' if count > 1 else ''} to markdown-exec, unchecked: {kinds}."
