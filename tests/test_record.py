"""`make update-outputs` (`python -m fieldnotes.record`) records what each snippet prints, under the same
time limits as the build (a fence's own `timeout=`, else mkdocs.yml's), and never records an output that
a time limit cut off."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import Project


def test_record_writes_outputs_and_honours_the_builds_timeouts(project: Project):
    """Catches `record` ignoring a fence's timeout (also one whose exec="on" comes later), or mkdocs.yml's."""
    project.snippet("quick.py", "print('hello from quick')\n")
    project.snippet("slow.py", "import time\n\nprint('started', flush=True)\ntime.sleep(30)\n", recorded="old\n")
    project.snippet("sleepy.py", "import time\n\ntime.sleep(4)\nprint('awake')\n", recorded="old\n")
    project.page(
        "index.md",
        '```python exec="on" source="above" result="text" title="snippets/quick.py"\n--8<-- "quick.py"\n```\n\n'
        '```python timeout="2" source="above" exec="on" result="text" title="snippets/slow.py"\n'
        '--8<-- "slow.py"\n```\n\n'
        '```python exec="on" source="above" result="text" title="snippets/sleepy.py"\n--8<-- "sleepy.py"\n```\n',
    )
    project.set_option("fieldnotes", timeout=1)  # sleepy.py needs 4 s
    project.write_config()
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes.record"], cwd=project.path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert (project.path / "snippets" / "quick.out").read_text() == "hello from quick\n"
    assert "updated   snippets/quick.out" in done.stdout
    # The page's timeout="2" applied (not the default 20 s), and the cut-off output was not recorded.
    assert "timed out snippets/slow.py: snippets/slow.py did not finish within 2 s" in done.stderr
    assert (project.path / "snippets" / "slow.out").read_text() == "old\n"
    assert "timed out snippets/sleepy.py: snippets/sleepy.py did not finish within 1 s" in done.stderr
    assert (project.path / "snippets" / "sleepy.out").read_text() == "old\n"
