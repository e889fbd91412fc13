"""The recorded outputs of a page's executed blocks that are not a snippet file of their own (code in the
fence, a named section, several includes, a session's blocks), in one file beside the page, read by a
reviewer as a diff: `docs/guide.md` -> `docs/guide.md.out`.

    # The outputs of guide.md's executed blocks, recorded by `python -m fieldnotes record`.
    # Under each block's name (its id=, else a digest of its code), what it printed, indented by four spaces.

    [greet] print("hello")
        hello

    [3f2a9c1e] x = [1, 2, 3]
        [1, 2, 3]

A block's name is its `id=` if it has one, else the first 8 hex digits of its code's SHA-256, with `-2`,
`-3`... for a second, third block of the same code on the page: an edit elsewhere on the page leaves it
unchanged. What follows the name is the block's first line of code, for the reader; an output that does
not end with a newline is followed by `\\ no newline at end of output`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes.examples import output_drift
from fieldnotes.runner import Run

SUFFIX = ".out"
_INDENT = "    "
_NO_NEWLINE = "\\ no newline at end of output"
_HEADER = re.compile(r"^\[(?P<name>[^\]\n]+)\](?: (?P<hint>.*))?$")


def outputs_path(page: str) -> str:
    """Where a page's outputs are recorded: `docs/guide.md` -> `docs/guide.md.out`."""
    return page + SUFFIX


def block_name(block_id: str, code: str, seen: dict[str, int]) -> str:
    """The block's name on its page: its `id=`, else a digest of its code, numbered from its second
    occurrence on the page. `seen` counts the names given so far on the page (updated)."""
    name = block_id or hashlib.sha256(code.encode()).hexdigest()[:8]
    seen[name] = seen.get(name, 0) + 1
    return name if seen[name] == 1 else f"{name}-{seen[name]}"


@dataclass(frozen=True)
class Section:
    name: str
    code: str
    """The block's code, whose first line is shown beside its name."""
    output: str


def first_line(code: str) -> str:
    """The first line of code worth showing (not blank, not hidden by markdown-exec), shortened."""
    lines = [line.strip() for line in code.splitlines() if line.strip() and "markdown-exec: hide" not in line]
    line = lines[0] if lines else ""
    return line if len(line) <= 72 else line[:71] + "…"


def render(page: str, sections: list[Section]) -> str:
    """The outputs file of `page` holding `sections`, in page order."""
    name = Path(page).name
    parts = [
        f"# The outputs of {name}'s executed blocks, recorded by `python -m fieldnotes record`.\n"
        "# Under each block's name (its id=, else a digest of its code), what it printed, indented by four spaces.\n"
    ]
    for section in sections:
        hint = first_line(section.code)
        lines = [f"[{section.name}]" + (f" {hint}" if hint else "")]
        lines += [_INDENT + line for line in section.output.splitlines()]
        if section.output and not section.output.endswith("\n"):
            lines.append(_NO_NEWLINE)
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def parse(text: str) -> dict[str, str]:
    """Each block's recorded output by its name."""
    outputs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            current = outputs.setdefault(header["name"], [])
        elif current is not None and (line.startswith(_INDENT) or line in ("", _NO_NEWLINE)):
            current.append(line)
    return {name: _output(lines) for name, lines in outputs.items()}


def _output(lines: list[str]) -> str:
    while lines and lines[-1] == "":  # the blank line before the next block (a blank output line is indented)
        lines.pop()
    if lines and lines[-1] == _NO_NEWLINE:
        return "\n".join(line.removeprefix(_INDENT) for line in lines[:-1])
    return "".join(line.removeprefix(_INDENT) + "\n" for line in lines)


def read(root: Path, page: str) -> dict[str, str] | None:
    """The page's recorded outputs by block name; None if it has no outputs file."""
    path = root / outputs_path(page)
    return parse(path.read_text(encoding="utf-8")) if path.exists() else None


def write(root: Path, page: str, sections: list[Section]) -> bool:
    """Record the page's outputs (these sections only: a block no longer on the page loses its own);
    True if that changed the file. A page without such blocks has no file."""
    path = root / outputs_path(page)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if not sections:
        if old is not None:
            path.unlink()
        return old is not None
    new = render(page, sections)
    if new == old:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def drift(
    page: str,
    name: str,
    recorded: dict[str, str] | None,
    run: Run,
    printed_by: str,
    record_command: str = "python -m fieldnotes record {snippet}",
) -> str | None:
    """What is wrong with this run of the page's block `name`, given the page's recorded outputs; or None.
    The page's line is the warning's to give."""
    where = outputs_path(page)
    return output_drift(
        f"block [{name}]",
        None if recorded is None else recorded.get(name),
        run,
        labels=(f"{where} [{name}] (recorded)", f"{page} [{name}] (printed by {printed_by})"),
        missing=f"{where} is missing" if recorded is None else f"{where} has no [{name}]",
        record=record_command.replace("{snippet}", page),
        review=where,
        likely="",  # a page block has no torch of its own to blame
    )
