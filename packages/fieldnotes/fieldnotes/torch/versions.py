"""What the committed drift reports (versions/*.json, written by fieldnotes.torch.drift.report) say, for the site.

A report keeps, for each example, the digest of its code when it ran and what it printed. Everything
here is worked out at build time from that and the current files: an example whose code changed since
a report is "not run under X since it changed" (never the old verdict), and one that printed differently
is compared with today's recorded output, so re-recording an output updates the verdict too.
No MkDocs import: the plugin's versions feature (fieldnotes/features/versions_page.py) calls `note_html`
beside each output and `page_markdown` for the page.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes.config import docs_dir, project_config
from fieldnotes.examples import Example, project_examples
from fieldnotes.torch.drift.classify import classify, snippet_digest

REPORTS_DIR = "versions"
MARKER = "<!-- fieldnotes: versions table -->"


@dataclass(frozen=True)
class Verdict:
    torch: str
    status: str
    """"same", "source-location", "behaviour", "changed" (code changed since the report) or "not run"."""
    changes: tuple[str, ...] = ()
    diff: str = ""

    @property
    def words(self) -> str:
        if self.status == "same":
            return "prints the same"
        if self.status == "source-location":
            return "prints differently: only torch's C++ source locations"
        if self.status == "behaviour":
            return "prints differently: " + ", ".join(self.changes)
        if self.status == "changed":
            return f"not run under torch {self.torch} since it changed"
        return f"not run under torch {self.torch}"


def load_reports(root: Path) -> list[dict]:
    """The committed reports, oldest torch first."""
    loaded = [json.loads(f.read_text(encoding="utf-8")) for f in sorted((root / REPORTS_DIR).glob("*.json"))]
    return sorted(loaded, key=lambda r: [int(p) if p.isdigit() else 0 for p in r["torch_version"].split(".")])


class Verdicts:
    """Each example's verdict under each report, worked out once: a build reads them beside every output
    and twice more on the versions page, and each compares two outputs. Make one per build, since a
    snippet or its recorded output may change between two (`mkdocs serve`)."""

    def __init__(self, root: Path, reports: list[dict]) -> None:
        self.root = root
        self.reports = reports
        self._found: dict[tuple[str, str], Verdict] = {}

    def of(self, report: dict, snippet: str) -> Verdict:
        key = (report["torch_version"], snippet)
        if key not in self._found:
            self._found[key] = verdict(self.root, report, snippet)
        return self._found[key]


def verdict(root: Path, report: dict, snippet: str) -> Verdict:
    torch = report["torch_version"]
    entry = report["examples"].get(snippet)
    if entry is None:
        return Verdict(torch, "not run")
    if entry["content_key"] != snippet_digest(root, snippet):
        return Verdict(torch, "changed")
    recorded_path = root / Example(root, snippet).recorded_path
    if not recorded_path.exists():
        return Verdict(torch, "not run")
    recorded = recorded_path.read_text(encoding="utf-8")
    drift = classify(
        snippet,
        recorded,
        entry["output"],
        raised=entry["exit_code"] != 0,
        reference_raised="Traceback (most recent call last):" in recorded,
        labels=(f"{recorded_path.relative_to(root)} (recorded)", f"{snippet} (printed by torch {torch})"),
    )
    return Verdict(torch, drift.verdict, tuple(drift.changes), drift.diff)


def note_html(verdicts: Verdicts, snippet: str, versions_url: str) -> str:
    """Beside an example's output: the torches of the reports under which it prints differently. A
    behaviour change gets a folded note with its diffs, one for the torches whose verdicts have the same
    words; a drift of torch's C++ source lines alone gets one line and no diff, since the diff would
    repeat the whole warning to show a line number."""
    by_words: dict[str, list[Verdict]] = {}
    moved_only: list[Verdict] = []
    for report in verdicts.reports:
        found = verdicts.of(report, snippet)
        if found.status == "behaviour":
            by_words.setdefault(found.words, []).append(found)
        elif found.status == "source-location":
            moved_only.append(found)
    notes = []
    if moved_only:
        torches = " and ".join(html.escape(v.torch) for v in moved_only)
        notes.append(
            f'<p class="fieldnotes-version">Same under torch {torches}; only torch\'s source line differs '
            f'(<a href="{versions_url}">Torch versions</a>).</p>'
        )
    for words, found in by_words.items():
        torches = " and ".join(html.escape(v.torch) for v in found)
        diffs = "".join(f"<pre><code>{html.escape(v.diff)}</code></pre>" for v in found)
        # The link sits in the body: a link inside <summary> nests one control in another.
        notes.append(
            f'<details class="note fieldnotes-version"><summary>Under torch {torches} '
            f"this example {html.escape(words)}</summary>{diffs}"
            f'<p>Every torch the examples were run under: <a href="{versions_url}">Torch versions</a>.</p>'
            "</details>"
        )
    return "".join(notes)


def page_markdown(verdicts: Verdicts, markdown: str, snippets_by_page: dict[str, list[str]], pinned: str) -> str:
    """The versions page: the marker replaced by a summary per torch and a table of every example."""
    if MARKER not in markdown:
        return markdown
    root, found = verdicts.root, verdicts.reports
    pages_of: dict[str, list[str]] = {}
    for page, snippets in snippets_by_page.items():
        for snippet in dict.fromkeys(snippets):
            pages_of.setdefault(snippet, []).append(page)
    examples = [e.snippet for e in project_examples(root)]
    lines = []
    for report in found:
        counts: dict[str, int] = {}
        for snippet in examples:
            status = verdicts.of(report, snippet).status
            counts[status] = counts.get(status, 0) + 1
        exercise = report.get("exercise")
        exercise_words = (
            f"; the exercise (`{exercise['path']}`, against {exercise['reference']}): {_exercise_words(root, report)}"
            if exercise
            else ""
        )
        lines.append(
            f"- **torch {report['torch_version']}** (`{report['torch']}`, Python {report['python']}): "
            f"{counts.get('same', 0)} examples print the same, "
            f"{counts.get('source-location', 0)} differ only in torch's C++ source locations, "
            f"{counts.get('behaviour', 0)} in behaviour, "
            f"{_not_run_words(counts)}{exercise_words}."
        )
    if not found:
        lines.append("- No report is committed yet.")
    header = "| Example | Shown on | " + " | ".join(f"torch {r['torch_version']}" for r in found) + " |"
    rule = "| --- | --- | " + " | ".join("---" for _ in found) + " |"
    rows = [header, rule]
    for snippet in examples:
        cells = [verdicts.of(r, snippet).words for r in found]
        shown_on = ", ".join(f"[{page.removesuffix('.md')}]({page})" for page in pages_of.get(snippet, []))
        rows.append(f"| `{snippet}` | {shown_on} | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n\n" + "\n".join(rows) + "\n"
    return markdown.replace(MARKER, table).replace("{{ pinned_torch }}", pinned)


def _not_run_words(counts: dict[str, int]) -> str:
    # Most examples not run under an old report were added after it, not changed since.
    changed, never = counts.get("changed", 0), counts.get("not run", 0)
    since = "since it changed" if changed == 1 else "since they changed"
    if not changed:
        return f"{never} not run under it"
    if not never:
        return f"{changed} not run under it {since}"
    return f"{changed + never} not run under it ({changed} of them {since})"


def _exercise_words(root: Path, report: dict) -> str:
    exercise = report["exercise"]
    if exercise["content_key"] != snippet_digest(root, exercise["path"]):
        return f"not run under torch {report['torch_version']} since it changed"
    if exercise["verdict"] == "same":
        return "prints the same"
    if exercise["verdict"] == "source-location":
        return "differs only in torch's C++ source locations"
    return "prints differently: " + ", ".join(exercise["changes"])


# A sentence that names a torch version ("On torch 2.13 a full backward hook ... does fire") was true of
# that torch: once the pin moves, it must be checked again. The suite fails on every one that names
# another version than the pin (tests/test_torch_upgrade.py), and the drift report lists them.
_NAMED_VERSION = re.compile(r"\b(?:torch|PyTorch)\s+v?(?P<version>\d+\.\d+(?:\.\d+)?)")


def version_sentences(root: Path, pinned: str) -> list[tuple[str, int, str]]:
    """Each line of the prose that names a torch version other than `pinned` (2.13 matches 2.13.0)."""
    pinned_release = pinned.split("+")[0].split(".")
    found = []
    options = project_config(root)
    written = f"{docs_dir(root)}/{options.versions.page}" if options.versions.page else None
    for pattern in options.versions.prose:
        for path in sorted(root.glob(pattern)):
            if path.relative_to(root).as_posix() == written:
                continue  # written from the reports
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                for match in _NAMED_VERSION.finditer(line):
                    named = match["version"].split(".")
                    if named != pinned_release[: len(named)]:
                        found.append((path.relative_to(root).as_posix(), number, line.strip()))
                        break
    return found
