"""Probes of docs/versions.md and the table the build adds to it. Oracles of the probes' own: the files on
disk and the torch running the tests (for recorded-with.json), git (which examples changed since the
report was committed), and a hand-written normalisation of torch's `(Triggered internally at ...)`
suffix (not fieldnotes' classifier) for the rows that say only C++ source locations differ."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import torch

from tests.conftest import ROOT, TORCH_PIN
from tests.probes._sentence import assert_on_page

PAGE = "versions.md"
REPORTS = sorted((ROOT / "versions").glob("torch-*.json"))
CHANGED = "not run under torch {} since it changed"
CPP_ONLY = "prints differently: only torch's C++ source locations"


def rendered_rows(site: Path) -> dict[str, list[str]]:
    """The built versions page's table: example -> the verdict of each reported torch, in column order."""
    html = (site / "versions" / "index.html").read_text(encoding="utf-8")
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if cells and cells[0].startswith("snippets/"):
            rows[cells[0]] = cells[2:]
    return rows


def test_recorded_with_names_the_pinned_torch_for_every_output():
    """Sentence: 'recorded beside its example (`snippets/recorded-with.json` names the torch that recorded
    each one)'. Counter-cases: an .out file missing from the JSON, an entry without its file, an entry
    naming another torch than the one running these tests (the pinned one)."""
    assert_on_page(PAGE, "(`snippets/recorded-with.json` names the torch that recorded each one)")
    recorded = json.loads((ROOT / "snippets" / "recorded-with.json").read_text(encoding="utf-8"))
    outs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.out")}
    assert set(recorded) == outs
    assert torch.__version__.split("+")[0] == TORCH_PIN
    assert set(recorded.values()) == {f"torch {torch.__version__}"}


def _without_triggered_at(text: str) -> str:
    return re.sub(r" \(Triggered internally at [^()]*\)", "", text)


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.stem)
def test_cpp_only_rows_differ_only_in_the_triggered_at_location(report, built_site):
    """Sentence: '"Only torch's C++ source locations" means the outputs differ only in the file and line of
    torch's own C++ source that they name, such as a warning's `(Triggered internally at
    .../TensorBody.h:493.)`; every other character is the same.' Counter-case: every row the page marks so,
    the report's output against the recorded one, with torch's `(Triggered internally at ...)` suffix cut
    out by this probe: equal then, and different before."""
    assert_on_page(PAGE, "every other character is the same.")
    data = json.loads(report.read_text(encoding="utf-8"))
    column = [json.loads(r.read_text(encoding="utf-8"))["torch_version"] for r in REPORTS].index(data["torch_version"])
    marked = [ex for ex, verdicts in rendered_rows(built_site).items() if verdicts[column] == CPP_ONLY]
    assert marked, "no row says only C++ source locations: pick another counter-case"
    for example in marked:
        printed = data["examples"][example]["output"]
        recorded = (ROOT / example).with_suffix(".out").read_text(encoding="utf-8")
        assert printed != recorded, example
        assert _without_triggered_at(printed) == _without_triggered_at(recorded), example


def _changed_since(commit: str, example: str) -> bool:
    """Whether the example or a helper beside it changed since `commit`; an example the commit did not
    have is new, not changed (its row says only "not run")."""
    path = ROOT / example
    existed = subprocess.run(["git", "cat-file", "-e", f"{commit}:{example}"], cwd=ROOT, capture_output=True)
    if existed.returncode != 0:
        return False
    files = [path, *sorted(path.parent.glob("_*.py"))]
    names = [f.relative_to(ROOT).as_posix() for f in files]
    run = subprocess.run(["git", "diff", "--quiet", commit, "--", *names], cwd=ROOT, check=False)
    return run.returncode != 0


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.stem)
def test_a_changed_example_says_not_run_never_the_old_verdict(report, built_site):
    """Sentence: 'An example whose code changed since then says "not run under that torch since it
    changed", never the old verdict.' Counter-case: git's own answer to 'did this example (or a helper
    beside it) change since the commit that last wrote the report?', for every row."""
    assert_on_page(PAGE, 'An example whose code changed since then says "not run under that torch since it changed"')
    name = report.relative_to(ROOT).as_posix()
    shallow = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    if shallow == "true":
        pytest.skip("a shallow clone (CI's checkout) has no history to say what changed since the report")
    commit = subprocess.run(
        ["git", "log", "-1", "--format=%H", "--", name], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    if not commit:
        pytest.skip(f"{name} is not committed yet")
    data = json.loads(report.read_text(encoding="utf-8"))
    column = [json.loads(r.read_text(encoding="utf-8"))["torch_version"] for r in REPORTS].index(data["torch_version"])
    changed_text = CHANGED.format(data["torch_version"])
    for example, verdicts in rendered_rows(built_site).items():
        assert (verdicts[column] == changed_text) == _changed_since(commit, example), (example, verdicts[column])


def test_every_examples_output_is_recorded_and_the_exercises_is_not():
    """Sentence: 'Every example's output on this site was printed by torch {{ pinned_torch }}, ... and
    recorded beside the example ...; the exercise is executed by the build itself'. Counter-case: the
    exercise's printed tables, which are recorded nowhere (the words said "every output" before): every
    snippet has its `.out`, and nothing of the exercise is recorded."""
    assert_on_page(PAGE, "Every example's output on this site was printed by torch {{ pinned_torch }}")
    assert_on_page(PAGE, "the exercise is executed by the build itself (below)")
    snippets = [p for p in (ROOT / "snippets").rglob("*.py") if not p.name.startswith("_")]
    assert snippets and all(p.with_suffix(".out").exists() for p in snippets)
    assert not list((ROOT / "docs" / "exercise").glob("*.out"))
    assert not list((ROOT / "snippets").rglob("vanishing*"))
