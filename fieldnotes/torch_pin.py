"""The check that runs before any page: the installed torch is the one the outputs were recorded with."""

from __future__ import annotations

import importlib.metadata

from mkdocs.exceptions import PluginError
from packaging.requirements import Requirement
from packaging.version import Version

from fieldnotes import DISTRIBUTION


def require_pinned_torch() -> None:
    """Stop at once, with what to do, when torch is missing or older than the pinned one."""
    pinned = pinned_torch()
    try:
        installed = Version(importlib.metadata.version("torch"))
    except importlib.metadata.PackageNotFoundError:
        raise PluginError(
            f"torch is not installed in this environment; the examples need torch {pinned}. "
            f"Run `make build` (it sets up .venv), or: pip install torch=={pinned}"
        ) from None
    if installed.release < pinned.release:
        raise PluginError(
            f"torch {installed} is installed but the examples are recorded with torch {pinned}. "
            f"Run `make build` (it sets up .venv), or: pip install torch=={pinned}"
        )


def pinned_torch() -> Version:
    for requirement in importlib.metadata.requires(DISTRIBUTION) or []:
        parsed = Requirement(requirement)
        if parsed.name == "torch":
            return Version(next(iter(parsed.specifier)).version)
    raise PluginError("pyproject.toml does not pin torch")
