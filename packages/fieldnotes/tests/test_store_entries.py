"""The Store's entries (fieldnotes/cache.py), in-process: what a key covers, where an entry is written,
what `cache: false` does, and the tests' reader store beside a build's."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from fieldnotes import cache
from fieldnotes.cache import CACHE_DIR, Store
from fieldnotes.examples import Example
from fieldnotes.runner import Run


@pytest.fixture
def root(tmp_path) -> Path:
    (tmp_path / "snippets" / "a").mkdir(parents=True)
    (tmp_path / "snippets" / "a" / "x.py").write_text("print(1)\n")
    return tmp_path


def entries(root: Path) -> list[str]:
    return sorted(p.name for p in (root / CACHE_DIR).iterdir())


def test_a_key_is_the_digest_of_environment_kind_and_contents(root):
    """Catches a key that leaves out the environment, the kind or a content, or joins them so that two
    different inputs meet, and a build entry without its prefix."""
    store = Store(root, environment="env")
    expected = hashlib.sha256(b"env\nkind\nab").hexdigest()
    assert store.key("kind", b"a", b"b") == "build-" + expected
    assert Store(root, environment="env", prefix="").key("kind", b"a", b"b") == expected
    assert store.key("kind", b"a") != store.key("kind", b"b")


def test_a_run_key_covers_the_snippet_its_kind_and_the_helpers_it_imports(root):
    """Catches a run reused after its snippet, or a helper it imports, changed (or was renamed), the same
    key for two ways of running it, and a key changed by a file the snippet cannot import (a helper in
    another folder, one it does not import)."""
    x = root / "snippets" / "a" / "x.py"
    x.write_text("from _helper import A\nprint(A)\n")

    def key(kind: str = "build") -> str:
        return Store(root, environment="env").run_key("snippets/a/x.py", kind)

    keys = [key(), key("then")]
    (root / "snippets" / "a" / "_helper.py").write_text("A = 1\n")
    keys.append(key())
    (root / "snippets" / "a" / "_helper.py").write_text("A = 2\n")
    keys.append(key())
    x.write_text("from _helper import A\nprint(A + 1)\n")
    keys.append(key())
    assert len(set(keys)) == len(keys)
    (root / "snippets" / "_helper.py").write_text("A = 3\n")
    (root / "snippets" / "a" / "_unused.py").write_text("B = 1\n")
    assert key() == keys[-1]


def test_a_saved_run_loads_back_and_marks_its_entry_used(root):
    """Catches a run that loads back changed, an entry written elsewhere, a torn write left behind, and
    a load that does not mark the entry as used (a full build would then evict it)."""
    store = Store(root, environment="env")
    example = Example(root, "snippets/a/x.py")
    store.save_run(example, Run("1\n", 1))
    key = store.run_key("snippets/a/x.py")
    assert entries(root) == [f"{key}.json"]
    path = root / CACHE_DIR / f"{key}.json"
    assert json.loads(path.read_text()) == {"snippet": "snippets/a/x.py", "output": "1\n", "exit_code": 1}
    os.utime(path, (0, 0))
    assert store.load_run(example) == Run("1\n", 1)
    assert path.stat().st_mtime > 0
    assert store.load_run(example, "then") is None


def test_cache_false_loads_and_saves_nothing(root):
    """Catches `cache: false` that still reuses a stored result or writes one."""
    Store(root, environment="env").save("build-k", {"v": 1})
    off = Store(root, environment="env", reuse=False)
    assert off.load("build-k") is None
    off.save("build-other", {"v": 2})
    off.save_run(Example(root, "snippets/a/x.py"), Run("1\n", 0))
    assert entries(root) == ["build-k.json"]
    calls = []
    assert off.memo("kind", b"c", lambda: calls.append(1) or {"v": 3}) == {"v": 3}
    assert off.memo("kind", b"c", lambda: calls.append(1) or {"v": 3}) == {"v": 3}
    assert calls == [1, 1]


def test_memo_computes_once_per_content_and_kind(root):
    """Catches a memo that computes again on a hit, or reuses a result for another content or kind."""
    store = Store(root, environment="env")
    calls = []

    def compute(value):
        return lambda: calls.append(value) or {"v": value}

    assert store.memo("kind", b"a", compute(1)) == {"v": 1}
    assert store.memo("kind", b"a", compute(2)) == {"v": 1}
    assert store.memo("kind", b"b", compute(3)) == {"v": 3}
    assert store.memo("other", b"a", compute(4)) == {"v": 4}
    assert calls == [1, 3, 4]
    assert len(entries(root)) == 3


def test_now_is_on_the_clock_of_the_stores_files(root):
    """Catches a `now()` that is not a file time of the store's folder (a build would evict what it just
    used, or keep what it did not)."""
    store = Store(root, environment="env")
    since = store.now()
    store.save("build-k", {"v": 1})
    assert (root / CACHE_DIR / "build-k.json").stat().st_mtime >= since
    assert not [p for p in (root / CACHE_DIR).iterdir() if p.name.startswith(".now-")]


def test_the_code_digest_covers_every_file_in_order(tmp_path):
    """Catches a kind that names only some of its code."""
    (tmp_path / "a.py").write_text("a")
    (tmp_path / "b.py").write_text("b")
    assert cache.code_digest(tmp_path / "a.py", tmp_path / "b.py") == hashlib.sha256(b"ab").hexdigest()


def test_eviction_keeps_an_entry_used_at_the_start_and_goes_on_past_a_vanished_one(root, monkeypatch):
    """Catches eviction of an entry used in the build's first instant (its time equal to the start), and
    an eviction that stops at an entry another build deleted under it."""
    store = Store(root, environment="env")
    for name in ["build-b-old", "build-c-start", "build-d-old", "other"]:
        store.save(name, {})
    os.symlink(root / "gone.json", root / CACHE_DIR / "build-a-vanished.json")  # stat() finds nothing
    for name, mtime in [("build-b-old", 999), ("build-c-start", 1000), ("build-d-old", 999), ("other", 1)]:
        os.utime(root / CACHE_DIR / f"{name}.json", (mtime, mtime))
    globbed = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: sorted(globbed(self, pattern)))
    evicted = store.evict_unused(1000.0)
    assert [p.name for p in evicted] == ["build-b-old.json", "build-d-old.json"]
    assert entries(root) == ["build-a-vanished.json", "build-c-start.json", "other.json"]


def test_two_snippets_with_the_same_code_have_their_own_run_keys(root):
    """Catches a run key of the code alone: two files with the same code shared one stored run, though
    each prints its own path (`__file__`, a traceback's `File "snippets/..."`), so a rebuild showed one
    file's output under the other."""
    (root / "snippets" / "a" / "y.py").write_text("print(1)\n")
    store = Store(root, environment="env")
    assert store.run_key("snippets/a/x.py") != store.run_key("snippets/a/y.py")


def test_a_content_key_is_the_digest_of_environment_kind_and_content(root):
    """Catches a notebook's key that leaves out its kind or its content (two notebooks, or a notebook
    and its slim page, would share an entry)."""
    store = Store(root, environment="env")
    assert store.content_key("kind", b"ab") == "build-" + hashlib.sha256(b"env\nkind\nab").hexdigest()


def test_a_run_key_has_the_format_stored_runs_were_saved_under(root):
    """Catches a change of how a run key joins its helpers (their path, a NUL, their bytes, one after
    another): every run CI's restored cache holds would silently miss, and be run again."""
    x = root / "snippets" / "a" / "x.py"
    x.write_text("import _h\nimport _g\n")
    (root / "snippets" / "a" / "_h.py").write_text("H\n")
    (root / "snippets" / "a" / "_g.py").write_text("G\n")
    helpers = b"snippets/a/_h.py\0H\nsnippets/a/_g.py\0G\n"
    expected = hashlib.sha256(b"env\nbuild\nsnippets/a/x.py\0" + x.read_bytes() + helpers).hexdigest()
    assert Store(root, environment="env").run_key("snippets/a/x.py") == "build-" + expected


def test_a_run_saved_one_way_is_loaded_only_that_way(root):
    """A run saved under a kind (a diagram's run, with its `then` code) is not the build's run of the same
    snippet. Catches save_run or load_run keying every kind as the build's: a page would show the
    diagram run's output, or a diagram the block's."""
    example = Example(root, "snippets/a/x.py")
    store = Store(root)
    store.save_run(example, Run(output="drawn\n", exit_code=0), kind="graph")
    assert store.load_run(example) is None
    assert store.load_run(example, kind="graph") == Run(output="drawn\n", exit_code=0)
