"""`make update-outputs` (`python -m fieldnotes.record`) records what each snippet prints, under the same
time limits as the build, and never records an output that a time limit cut off."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import Project


def test_record_writes_outputs_and_honours_a_fences_timeout(project: Project):
    project.snippet("quick.py", "print('hello from quick')\n")
    project.snippet("slow.py", "import time\n\nprint('started', flush=True)\ntime.sleep(30)\n", recorded="old\n")
    project.page(
        "index.md",
        '```python exec="on" source="above" result="text" title="snippets/quick.py"\n--8<-- "quick.py"\n```\n\n'
        '```python exec="on" source="above" result="text" timeout="2" title="snippets/slow.py"\n'
        '--8<-- "slow.py"\n```\n',
    )
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes.record"], cwd=project.path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (project.path / "snippets" / "quick.out").read_text() == "hello from quick\n"
    assert "updated   snippets/quick.out" in done.stdout
    # The page's timeout="2" applied (not the default 20 s), and the cut-off output was not recorded.
    assert "timed out snippets/slow.py: snippets/slow.py did not finish within 2 s" in done.stderr
    assert (project.path / "snippets" / "slow.out").read_text() == "old\n"
