"""`make mutants` (mutation/run.py), smoked on a few mutants so that it cannot rot unnoticed: the full
run takes too long for any test tier, and nothing else runs it."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT


def test_mutants_of_one_function_are_killed_by_its_module_tests(tmp_path):
    """Catches a copy of the tests that cannot collect them (run.py copying the listed test files but
    not the helpers their conftest imports: every mutant then "survives", 0% killed), and a run that
    mutates nothing."""
    done = subprocess.run(
        [
            sys.executable,
            "mutation/run.py",
            "fieldnotes/examples.py",
            "--function",
            "Example.record",
            "--work",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    row = re.search(r"^\| `fieldnotes/examples.py` \| \S+ \| (\d+) \| (\d+) \|", done.stdout, re.MULTILINE)
    assert row, done.stdout + done.stderr
    mutants, killed = map(int, row.groups())
    assert mutants >= 5 and killed / mutants >= 0.9, done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
