"""The installed torch must be the one the outputs are recorded with: pyproject.toml's pin.

The build checks it before any page (`require_pinned_torch`), and `fieldnotes.record` before recording
anything (`check_torch`). Either way round is refused: an older torch, and a newer one (an upgrade is
recorded by changing the pin first, then `make update-outputs`). A local build label is ignored
(`2.13.0+cpu` is 2.13.0); the advice never installs PyPI's Linux torch, a multi-GB CUDA build.
"""

from __future__ import annotations

import importlib.metadata
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


class TorchMismatch(Exception):
    """The installed torch is missing or is not the pinned one."""


def require_pinned_torch(root: Path) -> None:
    """Stop the build at once, with what to do, when torch is missing or is not the pinned one."""
    from mkdocs.exceptions import PluginError

    try:
        check_torch(root)
    except TorchMismatch as mismatch:
        raise PluginError(str(mismatch)) from None


def check_torch(root: Path) -> Version:
    """The installed torch's version, if it is the pinned one; else TorchMismatch, saying what to do."""
    pinned = pinned_torch(root)
    try:
        installed = Version(importlib.metadata.version("torch"))
    except importlib.metadata.PackageNotFoundError:
        raise TorchMismatch(
            f"torch is not installed in this environment; the examples are recorded with torch {pinned}. "
            + advice(pinned)
        ) from None
    if installed.release != pinned.release:
        newer = "newer" if installed.release > pinned.release else "older"
        raise TorchMismatch(
            f"torch {installed} is installed but the examples are recorded with torch {pinned} (pyproject.toml's "
            f"pin; the installed one is {newer}). " + advice(pinned)
        )
    return installed


def advice(pinned: Version) -> str:
    # PyPI's Linux torch is the CUDA build: name the CPU build and PyTorch's CPU index there.
    by_hand = (
        f"pip install torch=={pinned}+cpu --index-url {CPU_INDEX}"
        if sys.platform == "linux"
        else f"pip install torch=={pinned}"
    )
    return (
        "Run `make venv`, which installs requirements.lock into .venv (after changing the pin, `make lock` "
        f"first), or by hand: {by_hand}. To see what another torch changes: make drift-report TORCH=VERSION."
    )


def pinned_torch(root: Path) -> Version:
    """The torch pin of the site in `root`: its pyproject.toml's `torch==X` without a marker (what the
    checkout says now, never an installed copy's metadata)."""
    path = root / "pyproject.toml"
    project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {}) if path.exists() else {}
    for requirement in project.get("dependencies", []):
        parsed = Requirement(requirement)
        if parsed.name == "torch" and parsed.marker is None:
            return Version(next(iter(parsed.specifier)).version)
    raise TorchMismatch("pyproject.toml does not pin torch")
