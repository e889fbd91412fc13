"""How another torch's output is classified (fieldnotes/torch/drift/classify.py), in-process: the verdicts and
the report the drift report prints and the versions page is built from. Every expected value is written
out here (issue 33)."""

from __future__ import annotations

import hashlib
import locale
from pathlib import Path

import pytest

from fieldnotes.torch.drift.classify import (
    Drift,
    behaviour_changes,
    classify,
    compare,
    report_json,
    report_text,
    snippet_digest,
    without_source_locations,
)

LOCATED = "w.py:2: UserWarning: old (Triggered internally at /src/aten/TensorBody.h:493.)\n"

EXERCISE = "docs/exercise/vanishing_gradients.py"  # the notebook a report runs (the versions option)


def test_a_source_location_only_drift_keeps_its_diff_and_name():
    """Catches a source-location drift with no diff, the wrong labels, or lines joined without newlines."""
    moved = LOCATED.replace(":493.", ":488.")
    found = classify("x.py", "a\n" + LOCATED, "a\n" + moved, labels=("old", "new"))
    assert found == Drift("x.py", "source-location", [], f"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-{LOCATED}+{moved}")


def test_a_behaviour_drift_keeps_its_diff_and_name():
    """Catches a behaviour drift without its diff or name, and the default labels lost."""
    found = classify("x.py", "1\n", "2\n")
    assert found == Drift("x.py", "behaviour", ["a number"], "--- reference\n+++ other torch\n@@ -1 +1 @@\n-1\n+2\n")
    assert classify("x.py", "1\n", "1\n") == Drift("x.py", "same")


def test_a_source_location_change_beside_an_exception_is_behaviour():
    """Catches an exception raised (or gone) filed as a source-location drift when only locations differ."""
    moved = LOCATED.replace(":493.", ":488.")
    assert classify("x.py", LOCATED, moved, raised=True).changes == ["an exception raised"]
    assert classify("x.py", LOCATED, LOCATED, reference_raised=True).changes == ["an exception gone"]
    assert classify("x.py", LOCATED, LOCATED, raised=True, reference_raised=True).verdict == "same"


@pytest.mark.parametrize(
    ("reference", "output", "changes"),
    [
        ("a\n", "a\nb\n", ["a line added or gone"]),
        ("t grad_fn=<A>\nx = 1\n", "t grad_fn=<B>\nx = 2\n", ["a grad_fn name", "a number"]),
        ("x = 1\ny = 2\n", "x = 3\ny = 4\n", ["a number"]),
        ("x = 1\n", "x = 2\nmore\n", ["a number"]),
        ("x = 1\nerror: a\n", "x = 2\nerror: b\n", ["a number", "a message"]),
        ("Warning: a\n", "UserWarning: a\nUserWarning: b\n", ["a warning added", "a message"]),
        ("same\nx = 1\n", "same\nx = 2\n", ["a number"]),
        # A long output of one repeated line: difflib's autojunk would drop that line from the matching
        # and pair the line gone with the line added as a changed message.
        ("first\n" + "same\n" * 200, "same\n" * 200 + "last\n", ["a line added or gone"]),
    ],
    ids=[
        "line-added",
        "grad_fn-then-number",
        "two-numbers",
        "uneven-replace",
        "number-and-message",
        "warning",
        "after-equal-lines",
        "long-repeated",
    ],
)
def test_behaviour_changes_names_each_kind_once_in_order(reference, output, changes):
    """Catches a change left out after a grad_fn one, a kind named twice, a replace of uneven length that
    raises, and a drift with no change named."""
    assert behaviour_changes(reference, output, False, False) == changes


def test_a_number_is_any_of_its_spellings():
    """Catches numbers the classifier does not see as numbers (signs, exponents, leading dots)."""
    for old, new in [("-1.5e-3", "+2.0E+4"), (".5", "7."), ("10", "-3")]:
        assert behaviour_changes(f"v {old}\n", f"v {new}\n", False, False) == ["a number"]


def test_without_source_locations_replaces_each_kind_of_location():
    """Catches a location pattern that misses a kind of file or a path."""
    text = "a/b.h:1 c.hpp:2 d\\e.cpp:3 f-g.cu:4 h.cuh:5 i.cc:6 j.c:7 k.py:8"
    assert without_source_locations(text) == " ".join(["<torch source>"] * 7) + " k.py:8"


def test_an_example_is_digested_with_the_helpers_it_imports(tmp_path):
    """Catches a drift report that keys an example without the helpers it imports (directly, or through
    another helper), or with helpers it does not import or of other folders."""
    (tmp_path / "s").mkdir()
    x = b"import _b\n"
    (tmp_path / "s" / "x.py").write_bytes(x)
    (tmp_path / "s" / "_b.py").write_bytes(b"from _a import f\n")
    (tmp_path / "s" / "_a.py").write_bytes(b"a")
    (tmp_path / "s" / "_unused.py").write_bytes(b"u")
    (tmp_path / "_far.py").write_bytes(b"far")
    expected = hashlib.sha256(x + b"_a.py\0a" + b"_b.py\0from _a import f\n").hexdigest()
    assert snippet_digest(tmp_path, "s/x.py") == expected


def collected(root: Path) -> dict:
    (root / "snippets").mkdir()
    (root / "snippets" / "same.out").write_text("1\n")
    (root / "snippets" / "raises.out").write_text("Traceback (most recent call last):\nE\n")
    (root / "snippets" / "moved.out").write_text(LOCATED)
    (root / "snippets" / "slow.out").write_text("x\n")
    (root / "snippets" / "last.out").write_text("x = 1\nerror: a\n")
    run = {"content_key": "k"}
    return {
        "torch": "2.99.0+cpu",
        "torch_version": "2.99.0",
        "python": "3.11.7",
        "pinned_torch": "2.13.0",
        "examples": {
            "snippets/same.py": {**run, "output": "1\n", "exit_code": 0},
            "snippets/raises.py": {**run, "output": "Traceback (most recent call last):\nE\n", "exit_code": 1},
            "snippets/moved.py": {**run, "output": LOCATED.replace(":493.", ":9."), "exit_code": 0},
            "snippets/new.py": {**run, "output": "n\n", "exit_code": 0},
            "snippets/slow.py": {**run, "output": "stopped\n", "exit_code": -1, "timed_out": True},
            "snippets/last.py": {**run, "output": "x = 2\nerror: b\n", "exit_code": 0},
        },
        "exercise": {
            "output": "ratio 0.5\n", "exit_code": 0, "torch": "2.99.0+cpu", "content_key": "e", "path": EXERCISE
        },
    }


def test_compare_gives_each_run_its_verdict(tmp_path):
    """Catches a recorded traceback taken for a new exception, a timeout or a missing record not reported
    as behaviour, labels that name the wrong file or torch, and the exercise left out."""
    runs = collected(tmp_path)
    reference = {"output": "ratio 0.25\n", "exit_code": 0, "torch": "2.13.0+cpu"}
    drifts = compare(tmp_path, runs, reference)
    assert drifts[:4] == [
        Drift("snippets/same.py", "same"),
        Drift("snippets/raises.py", "same"),
        Drift(
            "snippets/moved.py",
            "source-location",
            [],
            "--- snippets/moved.out (recorded)\n+++ snippets/moved.py (printed by torch 2.99.0+cpu)\n"
            f"@@ -1 +1 @@\n-{LOCATED}+{LOCATED.replace(':493.', ':9.')}",
        ),
        Drift("snippets/new.py", "behaviour", ["no recorded output"], "n\n"),
    ]
    assert drifts[4] == Drift("snippets/slow.py", "behaviour", ["timed out"], "stopped\n")
    assert drifts[5] == Drift(
        "snippets/last.py",
        "behaviour",
        ["a number", "a message"],
        "--- snippets/last.out (recorded)\n+++ snippets/last.py (printed by torch 2.99.0+cpu)\n"
        "@@ -1,2 +1,2 @@\n-x = 1\n-error: a\n+x = 2\n+error: b\n",
    )
    assert drifts[6] == Drift(
        EXERCISE,
        "behaviour",
        ["a number"],
        f"--- {EXERCISE} (under torch 2.13.0+cpu)\n+++ {EXERCISE} (under torch 2.99.0+cpu)\n"
        "@@ -1 +1 @@\n-ratio 0.25\n+ratio 0.5\n",
    )
    assert len(drifts) == 7
    assert compare(tmp_path, runs, None) == drifts[:6]
    del runs["exercise"]
    assert compare(tmp_path, runs, reference) == drifts[:6]


def test_an_exercise_that_starts_or_stops_raising_is_a_behaviour_drift(tmp_path):
    """Catches the exercise's exit codes compared the wrong way round."""
    runs = collected(tmp_path)
    runs["exercise"]["exit_code"] = 1
    same = {"output": "ratio 0.5\n", "exit_code": 0, "torch": "2.13.0"}
    assert compare(tmp_path, runs, same)[-1].changes == ["an exception raised"]
    runs["exercise"]["exit_code"] = 0
    assert compare(tmp_path, runs, {**same, "exit_code": 1})[-1].changes == ["an exception gone"]
    assert compare(tmp_path, runs, same)[-1].verdict == "same"


def test_a_new_exception_where_none_is_recorded_is_behaviour(tmp_path):
    """Catches a run that now raises, where the record shows no traceback, passed as the same."""
    runs = collected(tmp_path)
    runs["examples"]["snippets/same.py"]["exit_code"] = 1
    assert compare(tmp_path, runs, None)[0].changes == ["an exception raised"]


def test_the_report_holds_every_verdict_and_the_exercise(tmp_path):
    """Catches a report that drops a field the versions page reads, or miscounts the drifts."""
    runs = collected(tmp_path)
    reference = {"output": "ratio 0.25\n", "exit_code": 0, "torch": "2.13.0+cpu"}
    drifts = compare(tmp_path, runs, reference)
    report = report_json(runs, drifts, reference)
    assert {k: v for k, v in report.items() if k not in ("examples", "exercise")} == {
        "torch": "2.99.0+cpu",
        "torch_version": "2.99.0",
        "python": "3.11.7",
        "pinned_torch": "2.13.0",
        "drifted": 5,
        "steps": {},  # no diagram's steps collected (tests/test_steps.py collects some)
    }
    assert report["examples"]["snippets/slow.py"] == {
        "content_key": "k",
        "verdict": "behaviour",
        "changes": ["timed out"],
        "exit_code": -1,
        "output": "stopped\n",
        "diff": "stopped\n",
    }
    assert list(report["examples"]) == list(runs["examples"])
    assert report["exercise"] == {
        "path": EXERCISE,
        "content_key": "e",
        "reference": "its run as a script under the pinned torch (2.13.0+cpu)",
        "verdict": "behaviour",
        "changes": ["a number"],
        "diff": drifts[6].diff,
    }
    assert "exercise" not in report_json(runs, drifts[:6], None)


def test_the_printed_report_lists_each_drift_with_its_diff(tmp_path):
    """Catches a printed report that miscounts, leaves a drift or its diff out, or calls a behaviour
    change a source-location one."""
    runs = collected(tmp_path)
    drifts = compare(tmp_path, runs, None)
    text = report_text(report_json(runs, drifts, None), drifts)
    assert text == "\n".join(
        [
            "Drift report: torch 2.99.0+cpu (pinned: 2.13.0), Python 3.11.7",
            "6 runs: 2 same, 1 differ only in torch's source locations, 3 in behaviour.",
            "",
            "source-location snippets/moved.py: only torch's C++ source locations",
            "    --- snippets/moved.out (recorded)",
            "    +++ snippets/moved.py (printed by torch 2.99.0+cpu)",
            "    @@ -1 +1 @@",
            f"    -{LOCATED.rstrip()}",
            f"    +{LOCATED.replace(':493.', ':9.').rstrip()}",
            "",
            "behaviour       snippets/new.py: no recorded output",
            "    n",
            "",
            "behaviour       snippets/slow.py: timed out",
            "    stopped",
            "",
            "behaviour       snippets/last.py: a number, a message",
            "    --- snippets/last.out (recorded)",
            "    +++ snippets/last.py (printed by torch 2.99.0+cpu)",
            "    @@ -1,2 +1,2 @@",
            "    -x = 1",
            "    -error: a",
            "    +x = 2",
            "    +error: b",
        ]
    )


def test_a_report_without_drifts_says_so(tmp_path):
    """Catches "Nothing drifts." missing from a clean report, or printed beside a drift."""
    runs = collected(tmp_path)
    runs["examples"] = {"snippets/same.py": runs["examples"]["snippets/same.py"]}
    drifts = compare(tmp_path, runs, None)
    assert report_text(report_json(runs, drifts, None), drifts).splitlines()[1:] == [
        "1 runs: 1 same, 0 differ only in torch's source locations, 0 in behaviour.",
        "Nothing drifts.",
    ]


def test_a_recorded_output_is_read_as_utf_8_whatever_the_locale(tmp_path):
    """Catches a `.out`, or a diagram's recorded steps (`NAME.steps.json`, written with non-ASCII text as
    it is), read in the locale's encoding (a "×" in it would not read on another machine)."""
    runs = collected(tmp_path)
    (tmp_path / "snippets" / "same.out").write_bytes("2 × 3\n".encode())
    (tmp_path / "snippets" / "same.steps.json").write_bytes('["2 × 3"]\n'.encode())
    runs["examples"]["snippets/same.py"]["output"] = "2 × 3\n"
    runs["steps"] = {"snippets/same.py": '["2 × 3"]\n'}
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        drifts = compare(tmp_path, runs, None)
        assert drifts[0] == Drift("snippets/same.py", "same")
        assert drifts[-1] == Drift("snippets/same.steps.json", "same")
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_each_diagrams_steps_are_compared_with_their_recorded_file(tmp_path):
    """A diagram snippet's backward pass, collected under another torch, against its NAME.steps.json
    beside the snippet: the same steps, changed ones, and a snippet with no recorded steps. Catches the
    steps left out of the comparison or the report, read from another file than the snippet's recorded
    steps, labelled with the wrong file or torch, or reported without their verdict, changes or diff."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "kept.steps.json").write_text('[{"node": "MulBackward0", "grad": "1."}]\n')
    (tmp_path / "snippets" / "moved.steps.json").write_text('[{"node": "MulBackward0", "grad": "1."}]\n')
    runs = {
        "torch": "2.99.0+cpu",
        "torch_version": "2.99.0",
        "python": "3.11.7",
        "pinned_torch": "2.13.0",
        "examples": {},
        "steps": {
            "snippets/kept.py": '[{"node": "MulBackward0", "grad": "1."}]\n',
            "snippets/moved.py": '[{"node": "MulBackward0", "grad": "2."}]\n',
            "snippets/unrecorded.py": '[{"node": "AddBackward0"}]\n',
        },
    }
    drifts = compare(tmp_path, runs, None)
    names = ["snippets/kept.steps.json", "snippets/moved.steps.json", "snippets/unrecorded.steps.json"]
    assert [(d.name, d.verdict) for d in drifts] == list(zip(names, ["same", "behaviour", "behaviour"], strict=True))
    assert drifts[1].diff.startswith(
        "--- snippets/moved.steps.json (recorded)\n+++ snippets/moved.py's backward pass (torch 2.99.0+cpu)\n"
    )
    assert '-[{"node": "MulBackward0", "grad": "1."}]' in drifts[1].diff
    assert '+[{"node": "AddBackward0"}]' in drifts[2].diff
    assert [line for line in drifts[2].diff.splitlines() if line.startswith("-")] == [
        "--- snippets/unrecorded.steps.json (recorded)"
    ]  # nothing recorded: nothing taken away
    report = report_json(runs, drifts, None)
    assert report["drifted"] == 2
    assert report["steps"] == {d.name: {"verdict": d.verdict, "changes": d.changes, "diff": d.diff} for d in drifts}
    assert report["steps"]["snippets/kept.steps.json"] == {"verdict": "same", "changes": [], "diff": ""}
