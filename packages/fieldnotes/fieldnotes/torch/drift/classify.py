"""How another torch's output differs from the reference, for the drift report and the versions page.

`source-location`: the outputs differ only in torch's own C++ source locations
(`(Triggered internally at .../TensorBody.h:493.)`), which say nothing about behaviour; `behaviour`
otherwise, with what changed: a message, a number, a `grad_fn` name, a warning added or gone, an
exception raised or gone. Pure functions: no torch, no MkDocs.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes.examples import Example

_SOURCE_LOCATION = re.compile(r"[\w./\\-]*\.(?:h|hpp|c|cc|cpp|cu|cuh):\d+")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_GRAD_FN = re.compile(r"grad_fn=<(\w+)>")
_WARNING = re.compile(r"\b\w*Warning: ")


def snippet_digest(root: Path, snippet: str) -> str:
    """The digest of what an example runs: its file and the helpers it imports (`Example.helpers`)."""
    digest = hashlib.sha256((root / snippet).read_bytes())
    for helper in sorted(Path(h) for h in Example(root, snippet).helpers):
        digest.update(helper.name.encode() + b"\0" + (root / helper).read_bytes())
    return digest.hexdigest()


def without_source_locations(text: str) -> str:
    return _SOURCE_LOCATION.sub("<torch source>", text)


@dataclass
class Drift:
    name: str
    verdict: str
    """"same", "source-location" or "behaviour"."""
    changes: list[str] = field(default_factory=list)
    """For a behaviour drift: what changed ("a number", "a grad_fn name", "a warning added", ...)."""
    diff: str = ""


def classify(
    name: str,
    reference: str,
    output: str,
    *,
    raised: bool = False,
    reference_raised: bool = False,
    labels: tuple[str, str] = ("reference", "other torch"),
) -> Drift:
    """How `output` (printed under the other torch) differs from `reference`; `labels` head the diff."""
    if output == reference and raised == reference_raised:
        return Drift(name, "same")
    diff = "".join(
        difflib.unified_diff(
            reference.splitlines(keepends=True),
            output.splitlines(keepends=True),
            fromfile=labels[0],
            tofile=labels[1],
        )
    )
    if without_source_locations(output) == without_source_locations(reference) and raised == reference_raised:
        return Drift(name, "source-location", diff=diff)
    return Drift(name, "behaviour", behaviour_changes(reference, output, raised, reference_raised), diff)


def behaviour_changes(reference: str, output: str, raised: bool, reference_raised: bool) -> list[str]:
    changes = []
    if raised != reference_raised:
        changes.append("an exception raised" if raised else "an exception gone")
    old_warnings = [w for w in reference.splitlines() if _WARNING.search(w)]
    new_warnings = [w for w in output.splitlines() if _WARNING.search(w)]
    if len(new_warnings) > len(old_warnings):
        changes.append("a warning added")
    if len(new_warnings) < len(old_warnings):
        changes.append("a warning gone")
    if _GRAD_FN.findall(reference) != _GRAD_FN.findall(output):
        changes.append("a grad_fn name")
    old_lines = without_source_locations(reference).splitlines()
    new_lines = without_source_locations(output).splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        for old, new in zip(old_lines[a1:a2], new_lines[b1:b2], strict=False):
            if old == new:
                continue
            if _GRAD_FN.sub("", old) == _GRAD_FN.sub("", new):
                continue  # counted above
            if _NUMBER.sub("N", old) == _NUMBER.sub("N", new):
                kind = "a number"
            else:
                kind = "a message"
            if kind not in changes:
                changes.append(kind)
    if not changes:
        changes.append("a line added or gone")
    return changes


def recorded_steps_path(snippet: str) -> str:
    from fieldnotes.torch.steps import recorded_path

    return recorded_path(snippet)


def compare(root: Path, collected: dict, exercise_reference: dict | None) -> list[Drift]:
    """Each example's run (and the exercise's) against its reference, in the order collected; and the
    backward pass of each diagram's snippet (`collected["steps"]`: the steps as their file holds them)
    against its recorded steps."""
    drifts = []
    for snippet, run in collected["examples"].items():
        recorded_path = root / Example(root, snippet).recorded_path
        if run.get("timed_out"):
            drifts.append(Drift(snippet, "behaviour", ["timed out"], run["output"]))
            continue
        if not recorded_path.exists():
            drifts.append(Drift(snippet, "behaviour", ["no recorded output"], run["output"]))
            continue
        recorded = recorded_path.read_text(encoding="utf-8")
        # A recorded traceback is the example's behaviour: raising is a drift only when the record shows none.
        reference_raised = "Traceback (most recent call last):" in recorded
        raised = run["exit_code"] != 0
        labels = (f"{recorded_path.relative_to(root)} (recorded)", f"{snippet} (printed by torch {collected['torch']})")
        drifts.append(
            classify(snippet, recorded, run["output"], raised=raised, reference_raised=reference_raised, labels=labels)
        )
    for snippet, steps in collected.get("steps", {}).items():
        path = root / recorded_steps_path(snippet)
        recorded = path.read_text(encoding="utf-8") if path.exists() else ""
        name = recorded_steps_path(snippet)
        labels = (f"{name} (recorded)", f"{snippet}'s backward pass (torch {collected['torch']})")
        drifts.append(classify(name, recorded, steps, raised=False, reference_raised=False, labels=labels))
    exercise = collected.get("exercise")
    if exercise is not None and exercise_reference is not None:
        path = exercise["path"]
        drifts.append(
            classify(
                path,
                exercise_reference["output"],
                exercise["output"],
                raised=exercise["exit_code"] != 0,
                reference_raised=exercise_reference["exit_code"] != 0,
                labels=(
                    f"{path} (under torch {exercise_reference['torch']})",
                    f"{path} (under torch {exercise['torch']})",
                ),
            )
        )
    return drifts


def report_json(collected: dict, drifts: list[Drift], exercise_reference: dict | None) -> dict:
    verdicts = {d.name: d for d in drifts}
    examples = {}
    for snippet, run in collected["examples"].items():
        d = verdicts[snippet]
        examples[snippet] = {
            "content_key": run["content_key"],
            "verdict": d.verdict,
            "changes": d.changes,
            "exit_code": run["exit_code"],
            "output": run["output"],
            "diff": d.diff,
        }
    report = {
        "torch": collected["torch"],
        "torch_version": collected["torch_version"],
        "python": collected["python"],
        "pinned_torch": collected["pinned_torch"],
        "drifted": sum(d.verdict != "same" for d in drifts),
        "examples": examples,
        "steps": {
            name: {"verdict": d.verdict, "changes": d.changes, "diff": d.diff}
            for name, d in verdicts.items()
            if name.endswith(".steps.json")
        },
    }
    exercise = collected.get("exercise")
    if exercise is not None and exercise["path"] in verdicts:
        d = verdicts[exercise["path"]]
        report["exercise"] = {
            "path": exercise["path"],
            "content_key": collected["exercise"]["content_key"],
            "reference": f"its run as a script under the pinned torch ({exercise_reference['torch']})",
            "verdict": d.verdict,
            "changes": d.changes,
            "diff": d.diff,
        }
    return report


def report_text(report: dict, drifts: list[Drift]) -> str:
    counts = {
        verdict: sum(d.verdict == verdict for d in drifts) for verdict in ("same", "source-location", "behaviour")
    }
    lines = [
        f"Drift report: torch {report['torch']} (pinned: {report['pinned_torch']}), Python {report['python']}",
        f"{len(drifts)} runs: {counts['same']} same, {counts['source-location']} differ only in torch's source "
        f"locations, {counts['behaviour']} in behaviour.",
    ]
    for d in drifts:
        if d.verdict == "same":
            continue
        what = "only torch's C++ source locations" if d.verdict == "source-location" else ", ".join(d.changes)
        lines.append(f"\n{d.verdict:15} {d.name}: {what}")
        lines += [f"    {line}" for line in d.diff.splitlines()]
    if not any(d.verdict != "same" for d in drifts):
        lines.append("Nothing drifts.")
    return "\n".join(lines)
