"""The store is bounded (fieldnotes/cache.py's Store.evict_unused): a full build deletes the entries of
its own that it did not use, and keeps every one it uses, a dirty build and the tests' reader runs keep
theirs, and a reader whose entry is evicted makes it again instead of failing."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from fieldnotes.cache import CACHE_DIR, Store
from tests.conftest import BUILD_ENV, Project, block

COUNTING = """from pathlib import Path

with Path("runs.log").open("a") as log:  # counts the runs
    log.write("run\\n")
print("counted")
"""


def entries(project: Project) -> set[str]:
    return {p.name for p in (project.path / CACHE_DIR).glob("*.json")}


def runs(project: Project) -> int:
    log = project.path / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_full_build_evicts_what_it_did_not_use_and_keeps_what_it_needs(project: Project):
    """Catches a store that only grows (every saved prose edit added entries), and an eviction that
    deletes what the next build needs (it would run the example again) or a reader's entry."""
    project.snippet("counting.py", COUNTING, recorded="counted\n")
    project.page("index.md", "# Page\n\nFirst words.\n\n" + block("counting.py"))
    project.set_option("fieldnotes", cache=True, execute=True)
    assert project.build().returncode == 0 and runs(project) == 1
    first = entries(project)
    reader = Store(project.path, prefix="")  # as the tests' reader runs store theirs
    reader.save("reader-run", {"output": "kept"})

    project.page("index.md", "# Page\n\nOther words.\n\n" + block("counting.py"))  # a prose edit
    assert project.build().returncode == 0 and runs(project) == 1
    second = entries(project)
    assert first - second, "the entries only the first build used were kept"
    assert second - first, "the prose edit made nothing new (the test would prove nothing)"
    assert "reader-run.json" in second

    assert project.build().returncode == 0 and runs(project) == 1, "an entry the build needs was evicted"
    assert entries(project) == second


def test_a_dirty_build_evicts_nothing(project: Project):
    """Catches eviction after `--dirty` (and so `mkdocs serve --dirty`): such a build renders only the
    pages that changed, so it does not use the entries of the others."""
    project.snippet("counting.py", COUNTING, recorded="counted\n")
    project.page("index.md", "# Page\n\nFirst words.\n\n" + block("counting.py"))
    project.page("other.md", "# Other\n\nUnchanged.\n")
    project.set_option("fieldnotes", cache=True, execute=True)
    assert project.build().returncode == 0
    first = entries(project)
    project.page("index.md", "# Page\n\nOther words.\n\n" + block("counting.py"))
    project.pages.remove("index.md")  # page() listed it again
    project.config["strict"] = False  # MkDocs warns that a dirty build is one
    project.write_config()
    dirty = [sys.executable, "-m", "mkdocs", "build", "--dirty", "--site-dir", str(project.path / "site")]
    done = subprocess.run(dirty, cwd=project.path, env=BUILD_ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert first <= entries(project)


def test_evicting_keeps_what_was_used_since_and_a_reader_of_an_evicted_entry_makes_it_again(tmp_path: Path):
    """Catches eviction by age of creation (an entry a build loaded would go), eviction of another
    prefix, and a load that fails on an entry another build deleted under it."""
    store = Store(tmp_path)
    store.save(store.key("kind", b"old"), {"v": "old"})
    store.save(store.key("kind", b"used"), {"v": "used"})
    Store(tmp_path, prefix="").save("reader", {"v": "reader"})
    made = max(p.stat().st_mtime for p in (tmp_path / CACHE_DIR).glob("*.json"))
    while store.now() <= made:  # the build starts after those were made, by the files' own clock
        time.sleep(0.01)
    since = store.now()
    assert store.load(store.key("kind", b"used")) == {"v": "used"}  # used by this build
    evicted = {p.name for p in store.evict_unused(since)}
    assert evicted == {store.key("kind", b"old") + ".json"}
    kept = {p.name for p in (tmp_path / CACHE_DIR).glob("*.json")}
    assert kept == {store.key("kind", b"used") + ".json", "reader.json"}
    calls = []
    assert store.memo("kind", b"old", lambda: calls.append(1) or {"v": "again"}) == {"v": "again"} and calls == [1]
