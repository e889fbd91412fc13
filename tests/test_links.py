"""The strict build fails on a broken internal link or anchor, naming it (mkdocs-htmlproofer-plugin).

A throwaway project uses the real mkdocs.yml and theme overrides with two small pages. To stay fast it
keeps only the plugins that matter for links (search and htmlproofer, exactly as configured), so no
example or notebook runs. The broken targets are ones MkDocs itself only reports at INFO level (a
relative link to a page that is not a Markdown file, an anchor missing on an existing page), so it is
the link checker that fails the build.
"""

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
KEPT_PLUGINS = ("search", "htmlproofer")

GOOD_PAGE = "# Other\n\n## A real section\n\nText.\n"


def plugin_name(entry) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


def real_config() -> dict:
    return yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def build(tmp_path: Path, index: str) -> subprocess.CompletedProcess:
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides")
    shutil.copytree(ROOT / "docs" / "stylesheets", tmp_path / "docs" / "stylesheets")
    (tmp_path / "docs" / "index.md").write_text(index, encoding="utf-8")
    (tmp_path / "docs" / "other.md").write_text(GOOD_PAGE, encoding="utf-8")
    config = real_config()
    config["plugins"] = [p for p in config["plugins"] if plugin_name(p) in KEPT_PLUGINS]
    config.pop("hooks", None)
    config["nav"] = ["index.md", "other.md"]
    (tmp_path / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_link_checker_is_configured_offline_and_failing():
    entries = [p for p in real_config()["plugins"] if plugin_name(p) == "htmlproofer"]
    assert entries, "mkdocs.yml does not enable the htmlproofer plugin"
    options = entries[0]["htmlproofer"] if isinstance(entries[0], dict) else {}
    assert options.get("validate_external_urls") is False, "external URLs must not be fetched (offline build)"
    assert options.get("raise_error_after_finish") is True


def test_good_links_build(tmp_path):
    result = build(tmp_path, "# Home\n\n[Other](other.md) and [its section](other.md#a-real-section).\n")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("broken", "named"),
    [
        pytest.param("[a page that is not there](no-such-page/)", "no-such-page", id="internal-link"),
        pytest.param("[a missing anchor](other.md#no-such-section)", "#no-such-section", id="anchor"),
    ],
)
def test_broken_link_fails_the_strict_build_naming_it(tmp_path, broken, named):
    result = build(tmp_path, f"# Home\n\n[Other](other.md), and {broken}.\n")
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"the strict build passed with {broken}:\n{output}"
    assert "htmlproofer" in output and named in output, f"the link checker did not name {named!r}:\n{output}"
