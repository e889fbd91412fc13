"""`python -m fieldnotes run --shard K/N` (fieldnotes/shard.py) runs one shard of the examples into the
store and reports their drift; the shards' stores, copied into one, leave the final build nothing to run."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from fieldnotes.cache import CACHE_DIR
from tests.conftest import BUILD_ENV, Project, block, mkdocs_build

COUNTING = """from pathlib import Path

with Path("runs.log").open("a") as log:  # counts the runs, in the project's folder
    log.write("{name}\\n")
print("{name}")
"""
NAMES = ["a", "b", "c", "d", "e"]


def runs(folder: Path) -> list[str]:
    log = folder / "runs.log"
    return sorted(log.read_text().split()) if log.exists() else []


def shard(folder: Path, which: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "fieldnotes", "run", "--shard", which]
    return subprocess.run(command, cwd=folder, env=BUILD_ENV, capture_output=True, text=True, timeout=300)


def make(project: Project) -> Project:
    for name in NAMES:
        project.snippet(f"{name}.py", COUNTING.format(name=name), recorded=f"{name}\n")
    project.page("index.md", "# Page\n\n" + "\n".join(block(f"{name}.py") for name in NAMES))
    project.set_option("fieldnotes", cache=True, execute=True)
    project.write_config()
    return project


def test_two_shards_stores_together_leave_the_final_build_nothing_to_run(tmp_path):
    """Catches a shard that runs another shard's examples (or all), a shard's run kept under another key
    than the build's (the build would run it again), and a run left out of every shard."""
    folders = [make(Project(tmp_path / name)).path for name in ("shard-1", "shard-2", "final")]
    first, second = shard(folders[0], "1/2"), shard(folders[1], "2/2")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert runs(folders[0]) == ["a", "c", "e"] and runs(folders[1]) == ["b", "d"]
    (folders[2] / CACHE_DIR).mkdir(parents=True)
    for folder in folders[:2]:
        for entry in (folder / CACHE_DIR).glob("*.json"):
            shutil.copy(entry, folders[2] / CACHE_DIR)
    built = mkdocs_build(folders[2], folders[2] / "site")
    assert built.returncode == 0, built.stderr
    assert runs(folders[2]) == [], "the final build ran examples the shards had stored"
    assert "<code>e\n</code>" in (folders[2] / "site" / "index.html").read_text()


def test_a_shard_reports_drift_and_stores_no_drifted_run(project: Project):
    """Catches a shard that passes, or stores, a run that differs from its recorded output."""
    make(project)
    (project.path / "snippets" / "c.out").write_text("not c\n")
    done = shard(project.path, "1/2")
    assert done.returncode == 1
    assert "drifted   snippets/c.py printed something other than its recorded output." in done.stderr
    assert "-not c" in done.stderr and "+c" in done.stderr
    again = shard(project.path, "1/2")
    assert "stored    snippets/a.py" in again.stdout and "drifted   snippets/c.py" in again.stderr
    assert runs(project.path) == ["a", "c", "c", "e"]
