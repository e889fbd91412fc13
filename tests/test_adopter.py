"""A second project adopts the plugin (examples/adopter/): its mkdocs.yml names `fieldnotes` among its
plugins and nothing else of ours, its snippets and recorded outputs are its own and use no torch. It
proves where the plugin's boundary lies: what this one needs is in the plugin, not in this site."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from tests.conftest import ROOT, mkdocs_build

ADOPTER = ROOT / "examples" / "adopter"


def built_copy(folder: Path):
    """A copy of the adopter in `folder`, built strictly. (That a drift or a false claim fails the build
    of such a site is the engine's own test: packages/fieldnotes/tests/test_tinybuild.py.)"""
    adopter = folder / "adopter"
    shutil.copytree(ADOPTER, adopter, ignore=shutil.ignore_patterns(".cache", "site"))
    return adopter, mkdocs_build(adopter, adopter / "site")


@pytest.fixture(scope="module")
def adopter_build(tmp_path_factory):
    return built_copy(tmp_path_factory.mktemp("adopter"))


def test_it_builds_showing_its_own_outputs_with_their_downloads(adopter_build):
    """Catches the plugin depending on this site: its theme overrides, torch, the API index or the
    notebook page (the adopter has none of them)."""
    adopter, result = adopter_build
    assert result.returncode == 0, result.stderr
    page = (adopter / "site" / "index.html").read_text()
    assert "<code>the 3\nand 2\n</code>" in page
    assert '<a href="snippets/text/count.py" download>snippets/text/count.py</a>' in page
    assert (adopter / "site" / "snippets" / "text" / "reverse.py").is_file()


def test_this_sites_html_rewrites_stay_off_for_it(adopter_build):
    """Catches a rewrite this site's stylesheet expects (the `html` options) reaching an adopter: its
    code keeps Pygments' operator spans (its theme colours them), its outputs carry no line marks, and
    its templates keep their indentation."""
    adopter, result = adopter_build
    assert result.returncode == 0, result.stderr
    page = (adopter / "site" / "index.html").read_text()
    assert '<span class="o">=</span>' in page
    assert "<w->" not in page
    assert "\n    <" in page


def test_adopting_takes_a_few_lines_and_no_torch():
    """Catches the adopter's configuration growing what only this site needs, or its code needing torch."""
    config = yaml_load((ADOPTER / "mkdocs.yml").read_text())
    assert config["plugins"] == ["fieldnotes"]
    code = [p.read_text() for p in (ADOPTER / "snippets").rglob("*.py")]
    assert code and not any("torch" in text for text in code)


def test_the_distribution_installs_alone_without_torch_and_builds_the_adopter(tmp_path):
    """Catches the distribution needing the site: a runtime dependency missing from
    packages/fieldnotes/pyproject.toml (or torch among them), a module it imports that is not in the
    package, or a torch import on the way of a site without torch. Its tracked files (as a clean clone
    has them) are installed into an empty environment, and the adopter is built there, strict."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "packages/fieldnotes", "examples/adopter"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    clone = tmp_path / "clone"
    for name in filter(None, listed):
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, clone / name)
    venv, uv = tmp_path / "venv", Path(sys.executable).parent / "uv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}  # PyPI, not the Makefile's index
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, venv], env=env, check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [uv, "pip", "install", "--quiet", "--python", python, clone / "packages" / "fieldnotes"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr
    probe = "import fieldnotes, sys; print(fieldnotes.__file__)\ntry:\n import torch\nexcept ImportError: sys.exit(3)"
    done = subprocess.run([python, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 3, f"torch is importable in the distribution's environment: {done.stderr}"
    assert done.stdout.startswith(str(venv)), f"fieldnotes came from {done.stdout}, not the install"
    adopter = clone / "examples" / "adopter"
    built = subprocess.run(
        [python, "-m", "mkdocs", "build", "--strict", "--site-dir", adopter / "site"],
        cwd=adopter,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    page = (adopter / "site" / "index.html").read_text()
    assert ">the 3\nand 2\n</code>" in page  # no Pygments here: the output's <code> has a class
    assert '<a href="snippets/text/count.py" download>snippets/text/count.py</a>' in page
