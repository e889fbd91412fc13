"""Shared fixtures: the real site built once per session, and small throwaway projects for broken input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
BUILD_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def mkdocs_build(project: Path, site_dir: Path, *, timeout: float = 600, env: dict | None = None):
    """The strict build, as `make build` runs it, of the project in `project`."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project,
        env={**BUILD_ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The real site, built strictly into a temporary folder once per test session."""
    site = tmp_path_factory.mktemp("site")
    result = mkdocs_build(ROOT, site)
    if result.returncode != 0:
        pytest.fail(f"the strict build failed:\n{result.stderr}", pytrace=False)
    return site


class Project:
    """A small project beside the real one: the real config and theme, with pages and snippets of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        shutil.copytree(ROOT / "overrides", path / "overrides")
        shutil.copytree(ROOT / "docs" / "stylesheets", path / "docs" / "stylesheets")
        (path / "snippets").mkdir()
        self.config = yaml_load((ROOT / "mkdocs.yml").read_text())  # mkdocs' loader: it knows !ENV
        # Only what the examples need: no notebooks, no link checking of pages we don't have.
        self.config["plugins"] = [
            p for p in self.config["plugins"] if _plugin_name(p) in ("search", "markdown-exec", "fieldnotes")
        ]
        self.config.pop("hooks", None)  # they serve the notebook page
        self.pages: list[str] = []

    def page(self, name: str, text: str) -> None:
        (self.path / "docs" / name).write_text(text)
        self.pages.append(name)

    def snippet(self, name: str, code: str, recorded: str | None = None) -> None:
        """Write snippets/NAME and, if given, its recorded output."""
        path = self.path / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        if recorded is not None:
            path.with_suffix(".out").write_text(recorded)

    def set_option(self, plugin: str, **options) -> None:
        self.config["plugins"] = [
            {plugin: {**(p.get(plugin) or {}), **options}} if _plugin_name(p) == plugin else p
            for p in self.config["plugins"]
        ]

    def build(self, **kwargs) -> subprocess.CompletedProcess:
        self.config["nav"] = self.pages
        (self.path / "mkdocs.yml").write_text(json.dumps(self.config))  # JSON is YAML
        return mkdocs_build(self.path, self.path / "site", **kwargs)


def _plugin_name(entry) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def block(snippet: str) -> str:
    """A page's executed block for snippets/SNIPPET, written as the real pages write it."""
    return f'```python exec="on" source="above" result="text" title="snippets/{snippet}"\n--8<-- "{snippet}"\n```\n'
