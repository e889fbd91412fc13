"""The pin check (fieldnotes/torch/pin.py), in-process: which torch is refused, what the refusal says,
and where the pin is read from. Each expected message is written out here (issue 33)."""

from __future__ import annotations

import importlib.metadata
import locale
import sys

import pytest
from mkdocs.exceptions import PluginError
from packaging.version import Version

from fieldnotes.torch import pin as torch_pin
from fieldnotes.torch.pin import TorchMismatch

ADVICE_LINUX = (
    "Run `make venv`, which installs requirements.lock into .venv (after changing the pin, `make lock` first), "
    "or by hand: pip install torch==2.13.0+cpu --index-url https://download.pytorch.org/whl/cpu. "
    "To see what another torch changes: make drift-report TORCH=VERSION."
)

PYPROJECT = """[project]
name = "x"
dependencies = [
    "numpy==2.1.0",
    "torch==2.13.0+cpu; sys_platform == 'linux'",
    "torch==2.13.0",
]
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def installed_torch(monkeypatch, version: str | None) -> None:
    real = importlib.metadata.version

    def version_of(name):
        if name != "torch":
            return real(name)
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(importlib.metadata, "version", version_of)


def test_the_pin_is_the_torch_requirement_without_a_marker(project):
    """Catches the pin read from a marked line (Linux's `+cpu` one), another package's line, or the
    installed metadata when the checkout's pyproject.toml is there."""
    (project / "pyproject.toml").write_text(PYPROJECT.replace('"torch==2.13.0",', '"torch==2.12.1",'))
    assert torch_pin.pinned_torch(project) == Version("2.12.1")


def test_without_a_pyproject_no_installed_metadata_is_read(tmp_path, monkeypatch):
    """Catches a checkout without pyproject.toml that falls back on an installed distribution's pin (an
    installed copy can be older than the checkout, and fieldnotes names no host distribution)."""
    monkeypatch.setattr(importlib.metadata, "requires", lambda name: ["numpy", "torch==2.11.0"])
    with pytest.raises(TorchMismatch, match="^pyproject.toml does not pin torch$"):
        torch_pin.pinned_torch(tmp_path)


def test_a_project_that_pins_no_torch_is_refused(project):
    """Catches a missing pin taken as any torch."""
    pyproject = '[project]\nname = "x"\ndependencies = ["torch==2.13.0; sys_platform == \'linux\'", "numpy==2.1"]\n'
    (project / "pyproject.toml").write_text(pyproject)
    with pytest.raises(TorchMismatch, match="^pyproject.toml does not pin torch$"):
        torch_pin.pinned_torch(project)


@pytest.mark.parametrize(("installed", "newer"), [("2.12.9", "older"), ("2.13.1", "newer"), ("3.0.0", "newer")])
def test_another_torch_is_refused_saying_which_and_what_to_do(project, monkeypatch, installed, newer):
    """Catches a check that lets an older or newer torch through, or says which it is the wrong way."""
    installed_torch(monkeypatch, installed)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(TorchMismatch) as refused:
        torch_pin.check_torch(project)
    assert str(refused.value) == (
        f"torch {installed} is installed but the examples are recorded with torch 2.13.0 (pyproject.toml's pin; "
        f"the installed one is {newer}). " + ADVICE_LINUX
    )


@pytest.mark.parametrize("installed", ["2.13.0", "2.13.0+cpu", "2.13.0+cu130"])
def test_the_pin_is_accepted_with_any_local_label(project, monkeypatch, installed):
    """Catches a check that refuses the pinned torch's own builds."""
    installed_torch(monkeypatch, installed)
    assert torch_pin.check_torch(project) == Version(installed)
    torch_pin.require_pinned_torch(project)


def test_a_missing_torch_is_refused_saying_what_to_install(project, monkeypatch):
    """Catches a missing torch that crashes the build instead of saying what to do, and the build's error
    that carries another message than the check's."""
    installed_torch(monkeypatch, None)
    monkeypatch.setattr(sys, "platform", "linux")
    expected = "torch is not installed in this environment; the examples are recorded with torch 2.13.0. "
    expected += ADVICE_LINUX
    with pytest.raises(TorchMismatch) as refused:
        torch_pin.check_torch(project)
    assert str(refused.value) == expected
    with pytest.raises(PluginError) as stopped:
        torch_pin.require_pinned_torch(project)
    assert str(stopped.value) == expected
    assert stopped.value.__cause__ is None and stopped.value.__suppress_context__


def test_elsewhere_the_advice_is_pypis_torch(monkeypatch):
    """Catches advice that sends macOS or Windows to the `+cpu` index (which has no such build there)."""
    monkeypatch.setattr(sys, "platform", "darwin")
    assert torch_pin.advice(Version("2.13.0")) == ADVICE_LINUX.replace(
        "pip install torch==2.13.0+cpu --index-url https://download.pytorch.org/whl/cpu", "pip install torch==2.13.0"
    )


def test_the_checkouts_pin_is_the_one_checked(project, monkeypatch):
    """Catches a check (or the build's) that reads the installed project's pin instead of the checkout's
    pyproject.toml (after a change of the pin, before reinstalling)."""
    (project / "pyproject.toml").write_text(PYPROJECT.replace('"torch==2.13.0",', '"torch==2.11.0",'))
    installed_torch(monkeypatch, "2.11.0+cpu")
    assert torch_pin.check_torch(project) == Version("2.11.0+cpu")
    torch_pin.require_pinned_torch(project)


def test_the_pin_is_read_as_utf_8_whatever_the_locale(project):
    """Catches pyproject.toml read in the locale's encoding: a non-ASCII comment would stop the build on a
    machine set up with another encoding."""
    (project / "pyproject.toml").write_text("# torch — the pin\n" + PYPROJECT, encoding="utf-8")
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        assert torch_pin.pinned_torch(project) == Version("2.13.0")
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_a_pyproject_without_a_project_table_pins_no_torch(project):
    """Catches a pyproject.toml with no [project] table (a site that keeps its tools' settings there
    only) crashing the check instead of saying that no torch is pinned."""
    (project / "pyproject.toml").write_text('[tool.ruff]\nline-length = 100\n')
    with pytest.raises(TorchMismatch, match="^pyproject.toml does not pin torch$"):
        torch_pin.pinned_torch(project)
