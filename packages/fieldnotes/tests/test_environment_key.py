"""The environment every stored run is keyed by (fieldnotes/cache.py): the Python version, the machine,
each installed distribution's name and version, and the runner's code. Each part changed alone gives
another key, and a run stored under one environment is then not reused under the other (issue 33:
only a package's version and the runner's code were tested, so dropping the others passed)."""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from fieldnotes import cache, runner
from fieldnotes.cache import Store
from fieldnotes.examples import Example
from fieldnotes.runner import Run


@pytest.fixture
def environment(tmp_path, monkeypatch):
    """A controlled environment: one folder of distributions on sys.path, a fixed Python and machine,
    a copy of the runner's code; `change(part)` alters one part of it."""
    site = tmp_path / "site-packages"
    site.mkdir()
    for folder in ["numpy-2.1.0.dist-info", "torch-2.13.0+cpu.dist-info", "README.txt"]:
        (site / folder).mkdir()
    code = tmp_path / "runner.py"
    code.write_bytes(Path(runner.__file__).read_bytes())
    monkeypatch.setattr(sys, "path", [str(site)])
    monkeypatch.setattr(sys, "version", "3.11.7 (main) [GCC 12.2.0]")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(runner, "__file__", str(code))

    def change(part: str) -> None:
        if part == "python":
            monkeypatch.setattr(sys, "version", "3.11.8 (main) [GCC 12.2.0]")
        elif part == "machine":
            monkeypatch.setattr(platform, "machine", lambda: "aarch64")
        elif part == "package":
            (site / "numpy-2.1.0.dist-info").rename(site / "numpy-2.1.1.dist-info")
        elif part == "new package":
            (site / "scipy-1.14.0.dist-info").mkdir()
        elif part == "runner":
            code.write_bytes(code.read_bytes() + b"\n# changed\n")

    return change


PARTS = ["python", "machine", "package", "new package", "runner"]


@pytest.mark.parametrize("part", PARTS)
def test_each_part_of_the_environment_alone_changes_the_key(environment, part):
    """Catches a key without the Python version, the machine, a distribution's version or the runner's
    code (each dropped from `environment_fingerprint` by hand once, and seen to fail)."""
    before = cache.environment_fingerprint()
    assert cache.environment_fingerprint() == before  # nothing changed: the same key
    environment(part)
    assert cache.environment_fingerprint() != before


@pytest.mark.parametrize("part", PARTS)
def test_a_run_stored_under_one_environment_is_not_reused_under_another(environment, tmp_path, part):
    """Catches a Store that reuses a run made under another Python, machine, package set or runner."""
    root = tmp_path / "project"
    (root / "snippets").mkdir(parents=True)
    (root / "snippets" / "x.py").write_text("print(1)\n")
    example = Example(root, "snippets/x.py")
    Store(root).save_run(example, Run("1\n", 0))
    assert Store(root).load_run(example) == Run("1\n", 0)  # same environment: reused
    environment(part)
    assert Store(root).load_run(example) is None


def test_the_installed_distributions_are_named_with_their_versions(environment, tmp_path):
    """Catches a list that keeps names only (an upgrade would then keep the key), loses a folder of
    sys.path (or those after one that cannot be read), or counts fieldnotes' own distribution (its code
    is in the key by content; an editable install's egg-info is found only from some folders)."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "ipykernel-6.29.0.dist-info").mkdir()
    (other / "fieldnotes-0.2.0.dist-info").mkdir()
    (other / "fieldnotes.egg-info").mkdir()
    (other / "jupytext-1.16.egg-info").mkdir()
    sys.path[:0] = [str(tmp_path / "missing"), str(tmp_path / "site-packages" / "README.txt")]
    sys.path.append(str(other))
    assert cache.installed() == [
        "ipykernel-6.29.0.dist-info",
        "jupytext-1.16.egg-info",
        "numpy-2.1.0.dist-info",
        "torch-2.13.0+cpu.dist-info",
    ]


@pytest.mark.parametrize("entry", ["", "cwd"])
def test_the_current_folder_is_no_environment(environment, tmp_path, monkeypatch, entry):
    """Catches the current folder on sys.path ("" under `python -m`, or its path) read as an environment:
    a checkout's own egg-info would then key runs by the folder a build starts in, and a cache filled
    from another folder would miss. A folder of sys.path that is not the current one is still read."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "site_pkg-1.0.egg-info").mkdir()
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "rich-13.0.dist-info").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    sys.path.append("" if entry == "" else str(tmp_path / "here"))
    sys.path.append(str(tmp_path / "env"))
    assert "site_pkg-1.0.egg-info" not in cache.installed()
    assert "rich-13.0.dist-info" in cache.installed()


@pytest.mark.parametrize(
    ("folder", "name"),
    [
        ("mkdocs_jupyter-0.26.3.dist-info", "mkdocs-jupyter"),
        ("mkdocs_jupyter.egg-info", "mkdocs-jupyter"),
        ("Torch-2.13.0+cpu.dist-info", "torch"),
    ],
)
def test_a_folder_names_its_distribution(folder, name):
    """Catches a folder not named by its distribution (one spelling left out): fieldnotes' own would be
    counted in the key."""
    assert cache._distribution_of(folder) == name
