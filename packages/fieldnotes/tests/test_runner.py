"""A snippet's run in a forked process (fieldnotes/runner.py) as a build gets it, against real `python`
processes: how it exits, and its time limit, which bounds its own run: not the wait for the fork server's
first import of torch, nor a child's start (issue 24: under load, `make update-outputs` timed out a quick
example because `python -m fieldnotes.record` re-imports its main module in every forked child)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fieldnotes import runner

# A main module that is slow to import wherever multiprocessing imports it again, as `__mp_main__`: in
# the fork server (before any fork) and in each forked child, before the child runs its snippet.
SLOW_START = """import sys
import time
from pathlib import Path

if __name__ == "__mp_main__":
    time.sleep(3)
if __name__ == "__main__":
    from fieldnotes import runner

    root = Path(sys.argv[1])
    try:
        print("ran:", runner.run_snippet(root, sys.argv[2], float(sys.argv[3])).output, end="")
    except runner.SnippetTimeout as timeout:
        print("timed out:", timeout, "| printed:", timeout.partial_output, end="")
"""


def run_with_a_slow_start(tmp_path, code: str, timeout: float) -> str:
    (tmp_path / "snippets").mkdir(exist_ok=True)
    (tmp_path / "snippets" / "example.py").write_text(code)
    (tmp_path / "slow_start.py").write_text(SLOW_START)
    done = subprocess.run(
        [sys.executable, "-m", "slow_start", str(tmp_path), "snippets/example.py", str(timeout)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(Path(runner.__file__).parents[1]), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_slow_start_does_not_time_out_a_quick_example(tmp_path):
    """Catches a time limit that starts before the child runs the snippet (at the fork request)."""
    assert run_with_a_slow_start(tmp_path, "print('quick')\n", 1) == "ran: quick\n"


def test_a_hanging_example_is_still_stopped_at_its_timeout(tmp_path):
    """Catches a time limit that no longer applies once the start is left out of it."""
    code = "import time\n\nprint('started', flush=True)\ntime.sleep(600)\n"
    out = run_with_a_slow_start(tmp_path, code, 1)
    assert out == "timed out: snippets/example.py did not finish within 1 s and was killed | printed: started\n"


@pytest.mark.parametrize("code", ["sys.exit('bye')", "sys.exit(3)", "sys.exit(None)"])
def test_a_run_exits_and_prints_as_python_does(tmp_path, code):
    """Catches a forked run whose exit code or printed message differs from a real `python x.py`'s (the
    oracle): `sys.exit("bye")` prints bye to stderr and exits 1, `sys.exit(3)` exits 3, `sys.exit(None)` 0."""
    (tmp_path / "x.py").write_text(f"import sys\n{code}\n")
    python = subprocess.run(
        [sys.executable, "x.py"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert runner.run_snippet(tmp_path, "x.py", 60) == runner.Run(python.stdout, python.returncode)
