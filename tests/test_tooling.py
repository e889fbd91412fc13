"""The build tooling itself: lint, and the torch check that runs before anything else."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys

import pytest
from mkdocs.exceptions import PluginError

from fieldnotes.torch import pin as torch_pin
from tests.conftest import ROOT, TORCH_PIN


def test_tooling_passes_ruff():
    command = [sys.executable, "-m", "ruff", "check", "packages/fieldnotes", "tests", "bench"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_missing_torch_stops_the_build_saying_what_to_install(monkeypatch):
    real_version = importlib.metadata.version

    def version(name):
        if name == "torch":
            raise importlib.metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    with pytest.raises(PluginError, match=rf"torch is not installed .* pip install torch=={re.escape(TORCH_PIN)}"):
        torch_pin.require_pinned_torch(ROOT)


def test_pinned_torch_is_read_from_the_site_pyproject():
    """Against pyproject.toml itself, read here with tomllib, independently of the plugin."""
    assert str(torch_pin.pinned_torch(ROOT)) == TORCH_PIN
