"""The suite's tiers (tests/conftest.py, TIERS): `make test-fast` runs no test that builds, opens a
browser or starts a process, wherever that test is written, and a new test file lands in its tier by
what it uses, without being listed anywhere."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid

import pytest

from tests.conftest import ROOT

# A new test file, as another contributor might write it: each test does what its name says.
NEW_FILE = """
import subprocess, sys
from tests.conftest import Project, mkdocs_build


def build_it(tmp_path):
    return Project(tmp_path).build()


def test_reads_the_real_site(built_site):
    assert built_site


def test_builds_through_a_helper(tmp_path):
    assert build_it(tmp_path).returncode == 0


def test_builds_in_a_lambda(tmp_path):
    run = lambda: mkdocs_build(tmp_path, tmp_path / "site")
    assert run()


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_runs_mkdocs_by_hand(tmp_path):
    subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path)


def test_adds_two_numbers():
    assert 1 + 1 == 2
"""
NEW_BROWSER_FILE = """
def test_opens_a_page(guarded):
    pass
"""


def collected(*args: str) -> set[str]:
    """The test ids `pytest --collect-only ARGS` collects (pytest's exit 5, nothing collected: none)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr
    return {line.split("::", 1)[1] for line in done.stdout.splitlines() if "::" in line}


@pytest.fixture(scope="module")
def new_files():
    """A new test folder under tests/ (and one under tests/browser/), removed afterwards."""
    name = f"tier_probe_{uuid.uuid4().hex[:8]}"
    folders = [ROOT / "tests" / name, ROOT / "tests" / "browser" / name]
    for folder, (module, text) in zip(folders, [("new", NEW_FILE), ("new_browser", NEW_BROWSER_FILE)], strict=True):
        folder.mkdir()
        (folder / f"test_{name}_{module}.py").write_text(text)
    yield [str(folder.relative_to(ROOT)) for folder in folders]
    for folder in folders:
        shutil.rmtree(folder)


def test_a_new_file_lands_in_its_tier_by_what_it_uses(new_files):
    """Catches a tier read from a list of files, or a classification that misses the real site, a build
    reached through a helper or a lambda, a process started, or the browser: each would put a slow test
    into `make test-fast`."""
    assert collected("-m", "fast", *new_files) == {"test_adds_two_numbers"}
    assert collected("-m", "build", *new_files) == {
        "test_reads_the_real_site",
        "test_builds_through_a_helper",
        "test_builds_in_a_lambda",
        "test_starts_a_process",
        "test_runs_mkdocs_by_hand",
    }
    assert collected("-m", "browser", *new_files) == {"test_opens_a_page"}
    assert collected("-m", "check", *new_files) == set()


def test_each_target_runs_its_tier():
    """Catches a Makefile target that runs another selection than its tier: `make test` running the
    tooling checks again (CI runs `make check` beside it), or `make test-fast` running every test; and
    `make test` (what CI runs) without the engine's own tests."""
    recipes, shown = {}, {}
    for target in ("test", "test-fast", "check"):
        shown[target] = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True)
        (command,) = [line for line in shown[target].stdout.splitlines() if "pytest -n auto" in line]
        recipes[target] = re.findall(r" -m (\"[^\"]+\"|\S+)", command)[-1].strip('"')  # after `-m pytest`
    assert recipes == {"test": "not check", "test-fast": "fast", "check": "check"}
    assert "cd packages/fieldnotes && " in shown["test"].stdout


def test_the_fast_tier_of_real_files():
    """On files of the suite: of test_adopter.py only its test that reads the configuration (the others
    build), nothing of tests/browser/ (even a test there that needs no page), nothing of the tooling."""
    fast = collected("-m", "fast", "tests/test_adopter.py", "tests/browser/test_copy.py", "tests/test_lock.py")
    assert fast == {"test_adopting_takes_a_few_lines_and_no_torch"}
