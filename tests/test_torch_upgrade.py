"""Issue 22: see what another torch changes before upgrading (the drift report), show it on the site (the
versions page, a note beside an output), upgrade safely (recording checks the torch, names it), and fix
one drift in one step (one message naming the command that records just that example)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from mkdocs.exceptions import PluginError

from fieldnotes.examples import project_examples
from fieldnotes.torch import pin as torch_pin
from fieldnotes.torch import versions
from fieldnotes.torch.drift import classify as drift_classify
from fieldnotes.torch.drift import env as drift_env
from tests.conftest import ROOT, TORCH_PIN, Project, block

INSTALLED_TORCH = importlib.metadata.version("torch")
# The non-leaf .grad warning, with torch's C++ source location in it.
WARNS = "import torch\n\na = torch.tensor(2.0, requires_grad=True)\nb = a * 3\nb.backward()\nprint(b.grad)\n"
COUNTS = "import torch\n\nprint(torch.arange(3) * 2)\n"
SAME = "print('same under every torch')\n"
# Like the real exercise run as a script, it saves a figure in the folder it runs in.
EXERCISE = "open('figure-1.svg', 'w').write('<svg/>')\nprint('the exercise ran')\n"


def recorded_project(path: Path) -> Project:
    """A project whose outputs were recorded under the installed torch by `fieldnotes.record`."""
    project = Project(path)
    shutil.copy(ROOT / "pyproject.toml", path / "pyproject.toml")
    for name, code in [("warns.py", WARNS), ("counts.py", COUNTS), ("same.py", SAME)]:
        project.snippet(name, code)
    (path / "docs" / "exercise").mkdir()
    (path / "docs" / "exercise" / "vanishing_gradients.py").write_text(EXERCISE)
    project.page("index.md", "# Page\n\n" + "".join(block(s) + "\n" for s in ["warns.py", "counts.py", "same.py"]))
    project.write_config()
    done = record(path)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def record(path: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fieldnotes.record", *arguments], cwd=path, capture_output=True, text=True, timeout=120
    )


def tree_digest(folder: Path) -> str:
    """The files under `folder`, names and bytes, but for the caches under .cache/ (the report's own)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.relative_to(folder).parts[0] != ".cache":
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------------
# 1. The drift report


@pytest.fixture(scope="module")
def drift_run(tmp_path_factory):
    """The report against the installed torch, on a copy whose recorded outputs were edited: counts.out with
    another number (behaviour), warns.out with another line in torch's TensorBody.h (a source location)."""
    project = recorded_project(tmp_path_factory.mktemp("drift"))
    snippets = project.path / "snippets"
    counts = snippets / "counts.out"
    counts.write_text(counts.read_text().replace("4", "6"))
    warns = snippets / "warns.out"
    assert re.search(r"TensorBody\.h:\d+", warns.read_text()), "the warning names torch's C++ source"
    warns.write_text(re.sub(r"(TensorBody\.h:)\d+", r"\g<1>1", warns.read_text()))
    before = {folder: tree_digest(project.path / folder) for folder in ("snippets", "docs", ".")}
    report_path = project.path.parent / f"{project.path.name}-report.json"
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes.torch.drift.report", "--python", sys.executable, "--json", str(report_path)],
        cwd=project.path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    after = {folder: tree_digest(project.path / folder) for folder in ("snippets", "docs", ".")}
    return done, json.loads(report_path.read_text()), before, after


def test_drift_report_classifies_each_drift_and_exits_1(drift_run):
    """Catches every drift filed as behaviour (or as a source location), a missed drift, exit 0 on a drift,
    and an exercise's reference that does not name the torch it ran under."""
    done, report, _, _ = drift_run
    assert done.returncode == 1, done.stdout + done.stderr
    examples = report["examples"]
    assert examples["snippets/counts.py"]["verdict"] == "behaviour"
    assert examples["snippets/counts.py"]["changes"] == ["a number"]
    assert examples["snippets/warns.py"]["verdict"] == "source-location"
    assert examples["snippets/same.py"]["verdict"] == "same"
    assert report["exercise"]["verdict"] == "same"
    assert report["exercise"]["reference"] == f"its run as a script under the pinned torch ({INSTALLED_TORCH})"
    assert report["drifted"] == 2
    assert "behaviour       snippets/counts.py: a number" in done.stdout
    assert "source-location snippets/warns.py: only torch's C++ source locations" in done.stdout


def test_drift_report_keys_each_example_by_its_content(drift_run):
    """Catches a report without the code's digest: the versions page could not tell a stale verdict."""
    _, report, _, _ = drift_run
    digest = hashlib.sha256(SAME.encode()).hexdigest()
    assert report["examples"]["snippets/same.py"]["content_key"] == digest
    assert report["torch_version"] == INSTALLED_TORCH


def test_drift_report_writes_nothing_into_snippets_or_docs(drift_run):
    """Catches the report recording what it ran (as `make update-outputs` would), touching the pages, or
    leaving in the project what the exercise saves where it runs (its figures)."""
    _, _, before, after = drift_run
    assert before == after


@pytest.mark.parametrize(
    ("reference", "output", "changes"),
    [
        ("x = 1.5\n", "x = 1.25\n", ["a number"]),
        (
            "<AddBackward0>\nt grad_fn=<AddBackward0>\n",
            "<AddBackward0>\nt grad_fn=<AddBackward1>\n",
            ["a grad_fn name"],
        ),
        ("ok\n", "a.py:3: UserWarning: new\nok\n", ["a warning added"]),
        ("a.py:3: UserWarning: old\nok\n", "ok\n", ["a warning gone"]),
        ("Error: shape mismatch\n", "Error: sizes do not match\n", ["a message"]),
    ],
)
def test_classify_names_what_changed(reference, output, changes):
    """Catches a wrong label on a behaviour drift (the report says what to look at)."""
    found = drift_classify.classify("x.py", reference, output)
    assert (found.verdict, found.changes) == ("behaviour", changes)


def test_classify_ignores_only_torchs_source_locations():
    """Catches a source-location-only drift filed as behaviour, and a real change hidden beside one."""
    old = "w: UserWarning: gone (Triggered internally at /__w/pytorch/aten/src/ATen/core/TensorBody.h:493.)\n"
    new = old.replace(":493.", ":488.")
    assert drift_classify.classify("x.py", old, new).verdict == "source-location"
    assert drift_classify.classify("x.py", old, new.replace("gone", "went")).verdict == "behaviour"
    assert drift_classify.classify("x.py", old, old).verdict == "same"


def test_drift_report_installs_with_pips_settings_never_into_venv(tmp_path):
    """Catches uv left without pip's folders, indexes and constraints (it reads none of pip's settings: the
    local 2.14.1 would not be found, or the constraints file's cap ignored), and an install into .venv."""
    settings = {
        "find-links": "/opt/wheels",
        "extra-index-url": "file:///a/simple file:///b/simple",
        "constraint": "/etc/xdg/pip/constraints.txt",
    }
    arguments = drift_env.uv_arguments(settings)
    assert arguments == [
        "--index", "file:///a/simple", "--index", "file:///b/simple", "--find-links", "/opt/wheels",
        "--constraints", "/etc/xdg/pip/constraints.txt", "--index-strategy", "unsafe-best-match",
    ]  # fmt: skip
    assert drift_env.uv_arguments({}) == []
    assert drift_env.environment_dir(ROOT, "2.14.1") == ROOT / ".cache" / "drift-report" / "torch-2.14.1"
    assert "torch==2.14.1" not in drift_env.lock_without_torch(ROOT) and "mkdocs==" in drift_env.lock_without_torch(
        ROOT
    )
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes.torch.drift.report", "--torch", "2.14.1", "--env", ".venv"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "never installs into .venv" in done.stderr


# --------------------------------------------------------------------------------------------------
# 3. Upgrading: recording checks the torch, and says which torch recorded each output


@pytest.mark.parametrize("pin", ["1.0.0", "99.0.0"])
def test_record_refuses_a_torch_other_than_the_pin(tmp_path, pin):
    """Catches recording under a torch that is not pyproject.toml's pin, older or newer (the README's
    upgrade used to reinstall the old lock after a failed `make lock` and record 'unchanged' under it)."""
    project = Project(tmp_path)
    project.snippet("x.py", "print('new')\n", recorded="old\n")
    project.page("index.md", "# P\n\n" + block("x.py"))
    project.write_config()
    pyproject = (ROOT / "pyproject.toml").read_text().replace(f"torch=={TORCH_PIN}", f"torch=={pin}")
    (tmp_path / "pyproject.toml").write_text(pyproject)
    done = record(tmp_path)
    assert done.returncode == 2
    assert "nothing recorded" in done.stderr
    assert f"torch {INSTALLED_TORCH} is installed but the examples are recorded with torch {pin}" in done.stderr
    assert (tmp_path / "snippets" / "x.out").read_text() == "old\n"


def test_pin_check_refuses_a_newer_torch_and_never_advises_a_cuda_build(monkeypatch):
    """Catches a pin check that lets a newer torch build the site, and advice (`pip install torch==X`) that
    on Linux pulls PyPI's multi-GB CUDA build."""
    real_version = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "99.0.0" if name == "torch" else real_version(name))
    with pytest.raises(PluginError, match=r"torch 99\.0\.0 is installed but .* the installed one is newer") as raised:
        torch_pin.require_pinned_torch(ROOT)
    if sys.platform == "linux":
        installs = re.findall(r"pip install (torch==\S+?)\.?((?: --\S+ \S+?)*)\.?(?: |$)", str(raised.value))
        assert installs, str(raised.value)
        for spec, rest in installs:
            assert spec.endswith("+cpu") and "--index-url https://download.pytorch.org/whl/cpu" in rest


def test_pin_check_accepts_the_pin_with_a_local_label(monkeypatch):
    """Catches a check that refuses 2.13.0+cpu for the pin 2.13.0 (or a CUDA build's 2.14.1+cu130)."""
    real_version = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: f"{TORCH_PIN}+cu130" if name == "torch" else real_version(name)
    )
    torch_pin.require_pinned_torch(ROOT)


def test_record_names_the_torch_that_recorded_each_output(tmp_path):
    """Catches a recording that leaves no trace of which torch printed it, or a manifest that keeps an
    output whose snippet is gone."""
    project = recorded_project(tmp_path)
    manifest = json.loads((project.path / "snippets" / "recorded-with.json").read_text())
    assert manifest == {f"snippets/{n}.out": f"torch {INSTALLED_TORCH}" for n in ("counts", "same", "warns")}
    (project.path / "snippets" / "same.py").unlink()
    (project.path / "snippets" / "same.out").unlink()
    assert record(project.path, "snippets/counts.py").returncode == 0
    assert "snippets/same.out" not in json.loads((project.path / "snippets" / "recorded-with.json").read_text())


def test_the_committed_manifest_names_the_pin_for_every_output():
    """Catches an output recorded (or left) under another torch than the pin, or one the manifest misses."""
    manifest = json.loads((ROOT / "snippets" / "recorded-with.json").read_text())
    assert set(manifest) == {e.recorded_path for e in project_examples(ROOT)}
    assert {v.removeprefix("torch ").split("+")[0] for v in manifest.values()} == {TORCH_PIN}


# --------------------------------------------------------------------------------------------------
# 4. One drift, one message, one step


def test_record_help_explains_itself():
    """Catches `--help` taken for a path (it printed nothing, and recorded nothing, before)."""
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes.record", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0
    for words in ("make update-outputs SNIPPET=", "python -m fieldnotes.record snippets/", "pins", "drift-report"):
        assert words in done.stdout


def test_record_records_just_the_snippet_it_is_given(tmp_path):
    """Catches a path argument ignored (all 68 examples re-recorded to fix one) or a typo recording nothing
    silently."""
    project = Project(tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    project.snippet("a.py", "print('a')\n", recorded="old\n")
    project.snippet("b.py", "print('b')\n", recorded="old\n")
    project.page("index.md", "# P\n\n" + block("a.py") + "\n" + block("b.py"))
    project.write_config()
    done = record(tmp_path, "snippets/a.py")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "snippets" / "a.out").read_text() == "a\n"
    assert (tmp_path / "snippets" / "b.out").read_text() == "old\n"
    assert record(tmp_path, "snippets/nope.py").returncode == 2


def test_make_update_outputs_passes_snippet():
    """Catches `make update-outputs SNIPPET=...` dropping the variable (re-recording everything)."""
    done = subprocess.run(
        ["make", "-n", "update-outputs", "SNIPPET=snippets/faq/in_place.py"], cwd=ROOT, capture_output=True, text=True
    )
    assert "-m fieldnotes.record snippets/faq/in_place.py" in done.stdout, done.stdout + done.stderr


@pytest.fixture(scope="module")
def drifted_build(tmp_path_factory):
    """A build with the API index and the link check, where one example drifted, a claim is false, another
    torch's report says one example prints differently, and another example changed since that report."""
    project = Project(tmp_path_factory.mktemp("drifted"))
    project.snippet("good.py", "print('good')\n", recorded="good\n")
    project.snippet("drifted.py", "import torch\n\nprint(torch.ones(2).sum())\n", recorded="tensor(3.)\n")
    project.snippet("changed.py", "print('changed')\n", recorded="changed\n")
    project.page(
        "index.md",
        "# Page\n\n"
        + "".join(block(s) + "\n" for s in ["good.py", "drifted.py", "changed.py"])
        + 'A true claim: `good`{ data-out="good.py" }.\n\n'
        + 'A false one: `bad`{ data-out="good.py" }.\n',
    )
    (project.path / "docs" / "versions.md").write_text("# Torch versions\n\n" + versions.MARKER + "\n")
    project.pages.append("versions.md")
    project.feature("api_index", enabled=True, page="api.md")
    project.feature("links", enabled=True)
    project.pages.append("api.md")
    report = {
        "torch": "9.9.9+cpu",
        "torch_version": "9.9.9",
        "python": "3.11",
        "pinned_torch": TORCH_PIN,
        "drifted": 1,
        "examples": {
            "snippets/good.py": {
                "content_key": hashlib.sha256(b"print('good')\n").hexdigest(),
                "exit_code": 0,
                "output": "good, said differently\n",
            },
            "snippets/changed.py": {"content_key": "an older version's digest", "exit_code": 0, "output": "x\n"},
        },
    }
    (project.path / "versions").mkdir()
    (project.path / "versions" / "torch-9.9.9.json").write_text(json.dumps(report))
    result = project.build()
    result.site = project.path / "site"
    return result


def warnings_of(build) -> list[str]:
    return [line for line in build.stderr.splitlines() if line.startswith("WARNING")]


def test_one_drift_gives_one_warning_naming_the_command_for_that_example(drifted_build):
    """Catches the knock-on link warning (a drifted block lost the id the API index links to) and a message
    that only says `make update-outputs` (re-recording all 68)."""
    found = [w for w in warnings_of(drifted_build) if "drifted" in w]
    assert len(found) == 1, "\n".join(warnings_of(drifted_build))
    assert "re-record it with: make update-outputs SNIPPET=snippets/drifted.py" in drifted_build.stderr


def test_a_false_claim_names_its_page_and_line_and_what_to_do(drifted_build):
    """Catches a claim warning without its line (the author hunts the page for it) or without the way out."""
    (claim,) = [w for w in warnings_of(drifted_build) if "claims" in w]
    assert "docs/index.md:17: the page claims snippets/good.py prints `bad`" in claim
    assert "Edit the sentence to what the example prints, or re-check the example." in claim


def test_a_drifted_example_still_shows_its_code_above_the_diff(drifted_build):
    """Catches the served page of a drifted example replacing the code too (the author cannot see the
    code they just edited)."""
    page = (drifted_build.site / "index.html").read_text()
    problem = page.index('class="admonition failure fieldnotes-drift"')
    code = page.rfind('id="ex-drifted"', 0, problem)
    assert code != -1 and "ones" in page[code:problem]


def test_an_example_that_prints_differently_under_a_reported_torch_says_so(drifted_build):
    """Catches the note missing beside the output, a stale verdict for an example that changed since the
    report, a diff against something else than today's recorded output, and a summary that counts an
    example the report never had as changed since it."""
    page = (drifted_build.site / "index.html").read_text()
    notes = re.findall(r'<details class="note fieldnotes-version">.*?</details>', page, re.DOTALL)
    assert len(notes) == 1
    assert "Under torch 9.9.9 this example prints differently" in notes[0]
    shown = re.sub(r"<[^>]+>", "", notes[0])  # the diff's text: its long lines carry output_lines' marks
    assert "--- snippets/good.out (recorded)\n+++ snippets/good.py (printed by torch 9.9.9)" in shown
    assert "-good\n" in shown and "+good, said differently" in shown
    versions_page = (drifted_build.site / "versions" / "index.html").read_text()
    assert "not run under torch 9.9.9 since it changed" in versions_page
    assert versions_page.count("prints differently") == 1
    # drifted.py is not in the report, changed.py changed since: the summary tells them apart
    assert "1 in behaviour, 2 not run under it (1 of them since it changed)" in versions_page


# --------------------------------------------------------------------------------------------------
# 2. Versions on the site, and sentences that name a torch


def test_the_site_lists_torch_2_14_1_and_2_15_0(built_site):
    """Catches the versions page missing, or built from no report (or without 2.15.0's, the newest on
    PyPI), and a note per torch where the torches' verdicts say the same (each note is a line of the
    first lesson, which must fit 6 screens)."""
    page = (built_site / "versions" / "index.html").read_text()
    assert "<strong>torch 2.14.1</strong>" in page and "<strong>torch 2.15.0</strong>" in page
    assert all(f"<code>{e.snippet}</code>" in page for e in project_examples(ROOT)), "a row for every example"
    if TORCH_PIN not in ("2.14.1", "2.15.0"):  # recorded under another torch: both moved C++ source lines
        assert "prints differently: only torch's C++ source locations" in page
        lesson = (built_site / "grad-is-none" / "index.html").read_text()
        assert "Same under torch 2.14.1 and 2.15.0; only torch's source line differs" in lesson


def test_a_verdict_is_worked_out_again_for_each_build(tmp_path):
    """A build's verdicts are read from the files as they are at that build. Catches verdicts kept
    beyond one build (a module-level or plugin-level memo): under `mkdocs serve`, re-recording an
    output would leave its versions note and row as they were."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "a.py").write_text("print('a')\n")
    (tmp_path / "snippets" / "a.out").write_text("a\n")
    report = {
        "torch_version": "9.9.9",
        "examples": {
            "snippets/a.py": {
                "content_key": hashlib.sha256(b"print('a')\n").hexdigest(),
                "exit_code": 0,
                "output": "a\n",
            }
        },
    }
    assert versions.Verdicts(tmp_path, [report]).of(report, "snippets/a.py").status == "same"
    (tmp_path / "snippets" / "a.out").write_text("A\n")  # re-recorded between two builds
    assert versions.Verdicts(tmp_path, [report]).of(report, "snippets/a.py").status == "behaviour"


def test_prose_names_only_the_pinned_torch():
    """Catches a sentence true of another torch than the one the site is built with (after an upgrade,
    faq/module-hooks.md's "On torch 2.13 ..." would be one): edit it, or drop the version."""
    assert versions.version_sentences(ROOT, TORCH_PIN) == []


def test_version_check_flags_the_sentences_an_upgrade_would_leave(tmp_path):
    """Catches a check that finds nothing (or that flags 2.13 for the pin 2.13.0), or one that reads other
    files than the plugin's `versions: {prose: [...]}` names."""
    prose = {"fieldnotes": {"versions": {"prose": ["docs/**/*.md"]}}}
    (tmp_path / "mkdocs.yml").write_text(json.dumps({"site_name": "t", "plugins": [prose]}))
    (tmp_path / "README.md").write_text("Tested on torch 2.12.\n")  # not among the prose: never flagged
    (tmp_path / "docs" / "faq").mkdir(parents=True)
    (tmp_path / "docs" / "faq" / "hooks.md").write_text("# H\n\nOn torch 2.13 it fires.\nIn PyTorch 2.14.1 too.\n")
    assert versions.version_sentences(tmp_path, "2.13.0") == [("docs/faq/hooks.md", 4, "In PyTorch 2.14.1 too.")]
    assert [line for _, line, _ in versions.version_sentences(tmp_path, "2.14.1")] == [3]


def test_the_scheduled_drift_report_keeps_its_report():
    """Catches the weekly job dropped, run against a fixed torch, or losing its report."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "docs.yml").read_text())
    assert workflow[True]["schedule"], "a schedule trigger"  # YAML reads `on:` as True
    job = workflow["jobs"]["drift-report"]
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert any("pypi.org/pypi/torch/json" in run for run in runs)
    assert any(run.startswith("make drift-report TORCH=") for run in runs)
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["if"] == "always()" and upload["with"]["path"] == "drift-report/"
