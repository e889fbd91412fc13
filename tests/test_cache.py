"""The output cache never shows a stale output: anything that could change what a snippet prints
(the snippet, a helper beside it, torch or any other installed package) makes it run again."""

from __future__ import annotations

import importlib.metadata
import re
import sys

from fieldnotes import cache
from fieldnotes.examples import Example
from tests.conftest import Project, block

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


def _site_packages(path, torch_version: str) -> str:
    """A folder with what pip leaves of torch and mkdocs installed (their metadata folders)."""
    for name in (f"torch-{torch_version}.dist-info", "mkdocs-1.6.1.dist-info"):
        (path / name).mkdir(parents=True, exist_ok=True)
    return str(path)


def test_torch_or_any_dependency_version_changes_the_key(project: Project, monkeypatch, tmp_path):
    project.snippet("example.py", "print('x')\n")
    example = Example(project.path, "snippets/example.py")
    keys = []
    for number, torch_version in enumerate(["2.13.0", "2.13.0", "2.14.0"]):
        monkeypatch.setattr(sys, "path", [_site_packages(tmp_path / str(number), torch_version)])
        cache.environment_fingerprint.cache_clear()
        keys.append(cache.key(example))
    cache.environment_fingerprint.cache_clear()
    assert keys[0] == keys[1] and keys[1] != keys[2]


def test_real_fingerprint_covers_the_installed_torch():
    """Every distribution importlib.metadata finds is in the fingerprint, torch with its version."""
    found = {_normal(d.metadata["Name"]) for d in importlib.metadata.distributions()}
    listed = {
        (_normal(name), version) for name, _, version in (f.rsplit(".", 1)[0].partition("-") for f in cache.installed())
    }
    assert found <= {name for name, _ in listed}
    assert ("torch", importlib.metadata.version("torch")) in listed


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()
    cache.environment_fingerprint.cache_clear()
    assert len(cache.environment_fingerprint()) == 64


def test_a_reader_run_and_a_build_run_of_one_snippet_have_different_keys(project: Project):
    project.snippet("example.py", "print('x')\n")
    example = Example(project.path, "snippets/example.py")
    before = cache.key(example, "standalone")
    assert cache.key(example) == cache.key(example, "build") != before
    project.snippet("example.py", "print('y')\n")
    assert cache.key(example, "standalone") != before


def test_memo_computes_once_and_again_when_the_content_or_the_kind_changes(tmp_path):
    """What a rebuild reuses (the notebook page's .ipynb and slimmed HTML, each page's notebook) is
    computed again whenever its content or the code that computes it (named in the kind) changes."""
    calls = []

    def compute(value):
        def run():
            calls.append(value)
            return {"value": value}

        return run

    assert cache.memo(tmp_path, "kind code-1", b"page", compute("first")) == {"value": "first"}
    assert cache.memo(tmp_path, "kind code-1", b"page", compute("second")) == {"value": "first"}
    assert cache.memo(tmp_path, "kind code-1", b"edited page", compute("third")) == {"value": "third"}
    assert cache.memo(tmp_path, "kind code-2", b"page", compute("fourth")) == {"value": "fourth"}
    assert calls == ["first", "third", "fourth"]
