"""The GitHub Actions workflow that ships with the site cannot run here, so it is linted: it must be a
valid workflow (GitHub's schema), pass zizmor's security audit, run the same targets as .ci/run, and
carry over from one run to the next what the set-up downloads and what the examples printed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from mkdocs.utils.yaml import yaml_load
from mkdocs_jupyter.plugin import Plugin as JupyterPlugin

from fieldnotes.cache import CACHE_DIR
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
    """Catches a pull request that passes without the whole suite or without the tooling checks: the
    test job not running .ci/run, or .ci/run leaving out `make test` or `make check`."""
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    runs = {job: [step.get("run") for step in spec["steps"] if "run" in step] for job, spec in jobs.items()}
    assert runs["test"] == ["bash .ci/run"]
    assert runs["publish"][0] == "make build"
    # then the built notebooks go to the branch the Colab badges link (tests/test_colab.py publishes to a
    # local bare repository as this step does)
    assert [" ".join(run.split()) for run in runs["publish"][1:]] == [
        'git config --global --add safe.directory "$PWD" .venv/bin/python -m fieldnotes.features.colab publish '
        'site \\ "https://x-access-token:${GITHUB_TOKEN}@github.com/${GITHUB_REPOSITORY}.git" --branch notebooks'
    ]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert {"make test", "make check"} <= set(ci), "CI runs the whole suite and the tooling checks"
    assert "set -euo pipefail" in ci, "a failed target fails CI"
    assert jobs["publish"]["needs"] == "test"


def cache_steps(job: dict, action: str) -> list[dict]:
    """The steps of `job` that use actions/cache/`action` (restore or save)."""
    return [step for step in job["steps"] if step.get("uses", "").startswith(f"actions/cache/{action}@")]


def notebook_cache_dir() -> str:
    """Where mkdocs-jupyter caches executed notebooks: mkdocs.yml's `cache_dir`, or the plugin's default."""
    plugins = yaml_load((ROOT / "mkdocs.yml").read_text())["plugins"]
    jupyter = next(
        entry["mkdocs-jupyter"] for entry in plugins if isinstance(entry, dict) and "mkdocs-jupyter" in entry
    )
    return jupyter.get("cache_dir", dict(JupyterPlugin.config_scheme)["cache_dir"].default)


def test_workflow_caches_downloads_and_runs():
    """Dropping a cache step, saving under another key than the one restored, keying the downloads on
    something else than the lock, or moving a run cache (fieldnotes.cache.CACHE_DIR, mkdocs-jupyter's
    cache_dir) without the workflow following: each
    would make every CI run set up or run cold."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    test, publish = workflow["jobs"]["test"], workflow["jobs"]["publish"]
    downloads = frozenset([workflow["env"]["UV_CACHE_DIR"]])
    runs = frozenset([CACHE_DIR, notebook_cache_dir()])

    restored = {frozenset(step["with"]["path"].split()): step for step in cache_steps(test, "restore")}
    assert set(restored) == {downloads, runs}, "the test job restores uv's cache and the run caches"
    assert "hashFiles('requirements.lock')" in restored[downloads]["with"]["key"], "downloads are keyed on the lock"

    saved = {(frozenset(step["with"]["path"].split()), step["with"]["key"]) for step in cache_steps(test, "save")}
    assert saved == {
        (paths, f"${{{{ steps.{step['id']}.outputs.cache-primary-key }}}}") for paths, step in restored.items()
    }, "the test job saves each cache under the key it restored"

    assert [step["with"] for step in cache_steps(publish, "restore")] == [
        step["with"] for step in cache_steps(test, "restore")
    ], "publish restores what the test job saved"
    assert not cache_steps(publish, "save")
