"""A second project adopts the plugin (examples/adopter/): its mkdocs.yml names `fieldnotes` among its
plugins and nothing else of ours, its snippets and recorded outputs are its own and use no torch. It
proves where the plugin's boundary lies: what this one needs is in the plugin, not in this site."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from tests.conftest import ROOT, mkdocs_build

ADOPTER = ROOT / "examples" / "adopter"


@pytest.fixture
def adopter(tmp_path) -> Path:
    shutil.copytree(ADOPTER, tmp_path / "adopter", ignore=shutil.ignore_patterns(".cache", "site"))
    return tmp_path / "adopter"


def test_it_builds_showing_its_own_outputs_with_their_downloads(adopter):
    """Catches the plugin depending on this site: its theme overrides, torch, the API index or the
    notebook page (the adopter has none of them)."""
    result = mkdocs_build(adopter, adopter / "site")
    assert result.returncode == 0, result.stderr
    page = (adopter / "site" / "index.html").read_text()
    assert "<code>the 3\nand 2\n</code>" in page
    assert '<a href="snippets/text/count.py" download>snippets/text/count.py</a>' in page
    assert (adopter / "site" / "snippets" / "text" / "reverse.py").is_file()


def test_a_drift_fails_its_build_naming_the_page_and_the_diff(adopter):
    """Catches a drift check that only this site's configuration turns on."""
    (adopter / "snippets" / "text" / "reverse.out").write_text("fieldnotes checks every output\n")
    result = mkdocs_build(adopter, adopter / "site")
    assert result.returncode != 0
    line = (adopter / "docs" / "index.md").read_text().splitlines().index('--8<-- "text/reverse.py"') + 1
    drifted = f"docs/index.md:{line}: snippets/text/reverse.py printed something other than its recorded output"
    assert drifted in result.stderr
    assert "-fieldnotes checks every output\n" in result.stderr and "+output every checks fieldnotes" in result.stderr
    assert "(printed by Python 3." in result.stderr
    assert "re-record it with: python -m fieldnotes.record, and review the diff" in result.stderr


def test_a_false_claim_fails_its_build(adopter):
    page = adopter / "docs" / "index.md"
    page.write_text(page.read_text().replace("`the`{", "`cat`{"))
    result = mkdocs_build(adopter, adopter / "site")
    assert result.returncode != 0
    assert "the page claims snippets/text/count.py prints `cat`" in result.stderr


def test_adopting_takes_a_few_lines_and_no_torch():
    """Catches the adopter's configuration growing what only this site needs, or its code needing torch."""
    config = yaml_load((ADOPTER / "mkdocs.yml").read_text())
    assert config["plugins"] == ["fieldnotes"]
    code = [p.read_text() for p in (ADOPTER / "snippets").rglob("*.py")]
    assert code and not any("torch" in text for text in code)
