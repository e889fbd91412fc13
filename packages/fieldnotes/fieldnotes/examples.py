"""Snippets, the outputs recorded beside them, and the one comparison the build and the tests share.

`snippets/leaves/seed.py` is an example; `snippets/leaves/seed.out` is what it printed when it was
last recorded (`make update-outputs`). The build and the tests both call `drift()`: a page can only
show an output that equals the recorded one, so every change in what torch prints shows up as a
reviewed diff of a `.out` file.
"""

from __future__ import annotations

import difflib
import functools
import importlib.metadata
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from fieldnotes.runner import Run

DEFAULT_SNIPPETS = "snippets"


class _TagsIgnored(yaml.SafeLoader):
    """mkdocs.yml as plain YAML: a tag MkDocs gives a meaning (`!ENV [...]`, `!!python/name:...`) reads as
    None; MkDocs' own loader is not imported, so the core runs without MkDocs."""


_TagsIgnored.add_multi_constructor("", lambda loader, suffix, node: None)

RECORD_COMMAND = "python -m fieldnotes.record {snippet}"
_HELPER_IMPORT = re.compile(r"^[ \t]*(?:from|import)[ \t]+(_\w+)", re.MULTILINE)


@dataclass(frozen=True)
class Example:
    root: Path
    snippet: str
    """Path of the snippet file relative to root, as pages include it: "snippets/leaves/seed.py"."""

    @property
    def recorded_path(self) -> str:
        """The recorded output's path, relative to root: "snippets/leaves/seed.out"."""
        return str(Path(self.snippet).with_suffix(".out"))

    @property
    def helpers(self) -> list[str]:
        """The helper files the snippet runs: the `_*.py` files beside it that it imports by name
        (`from _programs import ...`), directly or through another helper, root-relative, in the order
        first imported. The runner puts the snippet's folder on sys.path, so these are all it can import
        of the project's."""
        folder = (self.root / self.snippet).parent
        found: dict[str, None] = {}
        reading = [self.root / self.snippet]
        while reading:
            for name in _HELPER_IMPORT.findall(reading.pop(0).read_text(encoding="utf-8")):
                helper = folder / f"{name}.py"
                path = helper.relative_to(self.root).as_posix()
                if path not in found and helper.is_file():
                    found[path] = None
                    reading.append(helper)
        return list(found)

    def recorded(self) -> str | None:
        path = self.root / self.recorded_path
        return path.read_text(encoding="utf-8") if path.exists() else None

    def record(self, run: Run) -> bool:
        """Store the run's output as the expected one; True if that changed the file."""
        if run.output == self.recorded():
            return False
        (self.root / self.recorded_path).write_text(run.output, encoding="utf-8")
        return True


@functools.cache
def snippets_dir(root: Path) -> str:
    """The folder the pages include their examples from, relative to `root`: pymdownx.snippets' first
    `base_path` in mkdocs.yml (`--8<-- "topic/x.py"` includes SNIPPETS/topic/x.py); "snippets" where
    mkdocs.yml names none (or there is no mkdocs.yml: a project of `markdown.markdown` alone)."""
    config = root / "mkdocs.yml"
    settings = yaml.load(config.read_text(encoding="utf-8"), _TagsIgnored) if config.is_file() else None
    extensions = (settings or {}).get("markdown_extensions")
    for entry in extensions or []:
        if isinstance(entry, dict) and "pymdownx.snippets" in entry:
            base = (entry["pymdownx.snippets"] or {}).get("base_path") or DEFAULT_SNIPPETS
            return (base[0] if isinstance(base, list) else base).rstrip("/")
    return DEFAULT_SNIPPETS


def project_examples(root: Path) -> list[Example]:
    """Every snippet of the project; files starting with `_` are helpers, not examples."""
    files = sorted((root / snippets_dir(root)).rglob("*.py"))
    return [Example(root, str(f.relative_to(root))) for f in files if not f.name.startswith("_")]


def torch_version() -> str:
    return importlib.metadata.version("torch")


def drift(
    example: Example, run: Run, printed_by: str | None = None, record_command: str = RECORD_COMMAND
) -> str | None:
    """What is wrong with this run of the example, for the person who changed something; or None.
    `printed_by` names what printed it in the diff ("torch 2.13.0", the default); `record_command` is
    how the project records outputs (the plugin's `record_command`), `{snippet}` in it standing for this
    example's path, so that the message names the command that records just this one."""
    upgraded = f"a {printed_by.split()[0]}" if printed_by else "a torch"
    return output_drift(
        example.snippet,
        example.recorded(),
        run,
        labels=(
            f"{example.recorded_path} (recorded)",
            f"{example.snippet} (printed by {printed_by or f'torch {torch_version()}'})",
        ),
        missing=f"{example.recorded_path} is missing",
        record=record_command.replace("{snippet}", example.snippet),
        review=example.recorded_path,
        likely=f" (say, after {upgraded} upgrade)",
    )


def output_drift(
    subject: str,
    expected: str | None,
    run: Run,
    *,
    labels: tuple[str, str],
    missing: str,
    record: str,
    review: str,
    likely: str,
) -> str | None:
    """The build's message for an output `run` printed against the `expected` one, or None if they are the
    same: what printed it (`subject`: "snippets/x.py", "block [name]"), the diff between the `labels`, why
    nothing is recorded (`missing`), the command that `record`s it, the file to `review`, and the `likely`
    reason for a change (" (say, after a torch upgrade)")."""
    if expected is None:
        return (
            f"{subject} has no recorded output ({missing}).\nIt printed:\n{_indent(run.output)}\n"
            f"If that is right, record it with: {record}"
        )
    if run.output == expected:
        return None
    raised = run.exit_code != 0 and "Traceback (most recent call last):" not in expected
    headline = (
        f"{subject} raised an exception (exit code {run.exit_code}); its recorded output shows none."
        if raised
        else f"{subject} printed something other than its recorded output."
    )
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True), run.output.splitlines(keepends=True), fromfile=labels[0], tofile=labels[1]
    )
    return (
        f"{headline}\n{_indent(''.join(diff))}\n"
        f"If the new output is intended{likely}, re-record it with: {record}, and review the diff of {review}."
    )


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True)).rstrip("\n")
