"""The output cache never shows a stale output: anything that could change what a snippet prints
(the snippet, a helper beside it, torch or any other installed package) makes it run again."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

from mkdocs.config import load_config

from fieldnotes import cache, runner
from fieldnotes.examples import Example
from tests.conftest import ROOT, Project, block

COUNTING = """from pathlib import Path

import _helper

with Path("runs.log").open("a") as log:  # counts the runs
    log.write("run\\n")
print(_helper.GREETING)
"""


def runs(project: Project) -> int:
    log = project.path / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_unchanged_snippet_is_not_run_again_and_any_change_reruns_it(project: Project):
    """Catches a stale output shown after the snippet or a helper changed, a failed run reused, and a cache
    that ignores `cache: false`."""
    project.snippet("_helper.py", "GREETING = 'hello'\n")
    project.snippet("counting.py", COUNTING, recorded="hello\n")
    project.page("index.md", "# Page\n\n" + block("counting.py"))
    project.set_option("fieldnotes", cache=True)  # as mkdocs.yml has it, unless FIELDNOTES_CACHE=false
    assert project.build().returncode == 0 and runs(project) == 1
    assert project.build().returncode == 0 and runs(project) == 1, "an unchanged snippet ran again"

    project.snippet("counting.py", COUNTING + "# an edit\n")
    assert project.build().returncode == 0 and runs(project) == 2, "an edited snippet was not run"

    project.snippet("_helper.py", "GREETING = 'hello again'\n")
    result = project.build()
    assert runs(project) == 3, "a snippet whose helper changed was not run"
    assert result.returncode != 0 and "+hello again" in result.stderr, "the drift check did not see the new output"
    assert project.build().returncode != 0 and runs(project) == 4, "a run that failed the drift check was reused"

    (project.path / "snippets" / "counting.out").write_text("hello again\n")  # the new output, recorded
    assert project.build().returncode == 0 and runs(project) == 5
    project.set_option("fieldnotes", cache=False)
    assert project.build().returncode == 0 and runs(project) == 6, "cache: false reused an output"


def run_key(example: Example, kind: str = "build") -> str:
    """The key of a run of the example in a Store made now (its environment read now)."""
    return cache.Store(example.root).run_key(example.snippet, kind)


def _site_packages(path, *folders: str) -> str:
    """A folder with what an installer leaves of each distribution: its metadata folder."""
    for name in folders:
        (path / name).mkdir(parents=True, exist_ok=True)
    return str(path)


def test_torch_or_any_dependency_version_changes_the_key(project: Project, monkeypatch, tmp_path):
    """Catches a key that leaves out what is installed (a torch upgrade would show the old outputs)."""
    project.snippet("example.py", "print('x')\n")
    example = Example(project.path, "snippets/example.py")
    keys = []
    for number, torch_version in enumerate(["2.13.0", "2.13.0", "2.14.0"]):
        folder = _site_packages(tmp_path / str(number), f"torch-{torch_version}.dist-info", "mkdocs-1.6.1.dist-info")
        monkeypatch.setattr(sys, "path", [folder])
        keys.append(run_key(example))
    assert keys[0] == keys[1] and keys[1] != keys[2]


def _fingerprint_with(monkeypatch, folder: str) -> str:
    monkeypatch.setattr(sys, "path", [folder])
    try:
        return cache.environment_fingerprint()
    finally:
        monkeypatch.undo()


def test_real_fingerprint_covers_the_installed_torch(monkeypatch, tmp_path):
    """Catches a fingerprint that leaves out (or filters away) the real torch distribution: the real
    site-packages' metadata folders, with and without torch's, give two fingerprints."""
    torch_folder = Path(importlib.metadata.distribution("torch")._path).name  # torch-2.13.0+cpu.dist-info
    real = [
        f.name
        for f in Path(importlib.metadata.distribution("torch")._path).parent.iterdir()
        if f.name.endswith(".dist-info")
    ]
    assert torch_folder in real
    with_torch = _site_packages(tmp_path / "with", *real)
    without = _site_packages(tmp_path / "without", *(f for f in real if f != torch_folder))
    assert _fingerprint_with(monkeypatch, with_torch) != _fingerprint_with(monkeypatch, without)


def test_fieldnotes_own_distribution_is_left_out(monkeypatch, tmp_path):
    """Catches counting fieldnotes' own distribution (its code is in the keys by content): an editable
    install's egg-info is found only from its folder, so the same environment would get two fingerprints."""
    others = ["torch-2.13.0.dist-info", "mkdocs-1.6.1.dist-info"]
    expected = _fingerprint_with(monkeypatch, _site_packages(tmp_path / "a", *others))
    own = _site_packages(tmp_path / "b", *others, "fieldnotes-0.2.0.dist-info")
    egg = _site_packages(
        tmp_path / "c", *others, "fieldnotes-0.2.0.dist-info", "fieldnotes.egg-info"
    )
    assert _fingerprint_with(monkeypatch, own) == expected
    assert _fingerprint_with(monkeypatch, egg) == expected


def test_fingerprint_is_the_same_from_any_directory(tmp_path):
    """The bug itself: a build from the checkout and a build from elsewhere share the cache, whatever
    the site's own distribution is called (its egg-info in the checkout is not an environment's)."""
    code = "from fieldnotes import cache; print(cache.environment_fingerprint())"

    def fingerprint(cwd) -> str:
        done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    egg = tmp_path / "checkout"
    (egg / "some_site.egg-info").mkdir(parents=True)
    (egg / "some_site.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: some-site\nVersion: 0.1.0\n")
    assert fingerprint(egg) == fingerprint(tmp_path)


def test_a_reader_run_and_a_build_run_of_one_snippet_have_different_keys(project: Project):
    project.snippet("example.py", "print('x')\n")
    example = Example(project.path, "snippets/example.py")
    before = run_key(example, "standalone")
    assert run_key(example) == run_key(example, "build") != before
    project.snippet("example.py", "print('y')\n")
    assert run_key(example, "standalone") != before


def test_runner_code_changes_the_key(project: Project, monkeypatch, tmp_path):
    """Catches a key that leaves out the code that runs and captures the snippet (fieldnotes/runner.py)."""
    project.snippet("example.py", "print('x')\n")
    example = Example(project.path, "snippets/example.py")
    code = tmp_path / "runner.py"
    code.write_bytes(Path(runner.__file__).read_bytes())
    monkeypatch.setattr(runner, "__file__", str(code))
    keys = []
    for edit in ["", "# an edit\n"]:
        code.write_text(code.read_text() + edit)
        keys.append(run_key(example))
    assert keys[0] != keys[1]


def test_notebook_cache_is_kept_per_environment(monkeypatch):
    """Catches reusing the exercise notebook's executed output after an upgrade: mkdocs-jupyter's own cache
    key covers only the notebook and its settings, so the plugin gives each environment its own folder."""
    folders = []
    for fingerprint in ["a" * 64, "b" * 64]:
        monkeypatch.setattr(cache, "environment_fingerprint", lambda fingerprint=fingerprint: fingerprint)
        config = load_config(str(ROOT / "mkdocs.yml"))
        config.plugins["fieldnotes"].on_config(config)
        folders.append(config.plugins["mkdocs-jupyter"].config["cache_dir"])
    assert folders[0] != folders[1]


def test_memo_computes_once_and_again_when_the_content_or_the_kind_changes(tmp_path):
    """What a rebuild reuses (the notebook page's .ipynb and slimmed HTML, each page's notebook) is
    computed again whenever its content or the code that computes it (named in the kind) changes."""
    calls = []

    def compute(value):
        def run():
            calls.append(value)
            return {"value": value}

        return run

    assert cache.Store(tmp_path).memo("kind code-1", b"page", compute("first")) == {"value": "first"}
    assert cache.Store(tmp_path).memo("kind code-1", b"page", compute("second")) == {"value": "first"}
    assert cache.Store(tmp_path).memo("kind code-1", b"edited page", compute("third")) == {"value": "third"}
    assert cache.Store(tmp_path).memo("kind code-2", b"page", compute("fourth")) == {"value": "fourth"}
    assert calls == ["first", "third", "fourth"]


def test_memo_computes_again_in_another_environment(tmp_path, monkeypatch):
    """Catches a memo key that leaves out what is installed: a theme or markdown-exec upgrade would keep
    showing blocks and search entries made by the old version."""
    assert cache.Store(tmp_path).memo("kind", b"page", lambda: {"value": "old"}) == {"value": "old"}
    monkeypatch.setattr(cache, "environment_fingerprint", lambda: "another environment")
    assert cache.Store(tmp_path).memo("kind", b"page", lambda: {"value": "new"}) == {"value": "new"}


def _configured(cache_option: bool):
    """The state of a build of the real mkdocs.yml with the plugin's `cache` set, as on_config makes it
    (in this process; MkDocs keeps one plugin object for all of them)."""
    config = load_config(str(ROOT / "mkdocs.yml"))
    plugin = config.plugins["fieldnotes"]
    plugin.config["cache"] = cache_option
    plugin.on_config(config)
    return plugin.build


def test_a_build_without_cache_leaves_nothing_switched_for_the_next(tmp_path):
    """Catches the cache switch kept in a module (issue 24: a `cache: false` build turned reuse off for
    every build and test after it in the same process, so FIELDNOTES_CACHE=false failed test_cache)."""
    on = _configured(True)
    off = _configured(False)  # after it, as a FIELDNOTES_CACHE=false test run does
    assert not off.store.reuse and on.store.reuse
    calls = []
    compute = lambda: calls.append(1) or {"value": len(calls)}  # noqa: E731
    store = cache.Store(tmp_path)
    assert store.memo("kind", b"content", compute) == store.memo("kind", b"content", compute)
    assert calls == [1]


def test_a_run_key_covers_the_helpers_a_helper_imports(tmp_path):
    """Catches helpers found among the snippet's own imports only: a helper that imports another (the
    rules' _checks imports _programs) would leave the second out of the run's key, and out of the page
    notebook's `%%writefile` cells (both read Example.helpers)."""
    folder = tmp_path / "snippets" / "x"
    folder.mkdir(parents=True)
    (folder / "main.py").write_text("import _a\n")
    (folder / "_a.py").write_text("from _b import X\n")
    (folder / "_b.py").write_text("X = 1\n")
    (folder / "_other.py").write_text("Y = 1\n")
    assert Example(tmp_path, "snippets/x/main.py").helpers == ["snippets/x/_a.py", "snippets/x/_b.py"]
    store = cache.Store(tmp_path, environment="an environment")
    before = store.run_key("snippets/x/main.py")
    (folder / "_other.py").write_text("Y = 2\n")  # imported by nothing: another snippet's
    assert store.run_key("snippets/x/main.py") == before
    (folder / "_b.py").write_text("X = 2\n")
    assert store.run_key("snippets/x/main.py") != before
