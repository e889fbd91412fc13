"""The GitHub Actions workflow that ships with the site cannot run here, so it is linted: it must be a
valid workflow (GitHub's schema), pass zizmor's security audit, and run the same targets as .ci/run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "docs.yml"
BIN = Path(sys.executable).parent


def test_workflow_matches_githubs_schema():
    result = subprocess.run(
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", WORKFLOW],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_passes_zizmor_audit():
    result = subprocess.run([BIN / "zizmor", "--offline", WORKFLOW], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflow_runs_the_same_targets_as_ci():
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    runs = {job: [step.get("run") for step in spec["steps"] if "run" in step] for job, spec in jobs.items()}
    assert runs["test"] == ["bash .ci/run"]
    assert runs["publish"] == ["make build"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert jobs["publish"]["needs"] == "test"
