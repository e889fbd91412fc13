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


def built_copy(folder: Path, *, broken: bool):
    """A copy of the adopter in `folder`, built strictly; `broken`: with a drift (reverse.out changed) and
    a false claim (`cat` for `the`), which one build reports together."""
    adopter = folder / "adopter"
    shutil.copytree(ADOPTER, adopter, ignore=shutil.ignore_patterns(".cache", "site"))
    if broken:
        (adopter / "snippets" / "text" / "reverse.out").write_text("fieldnotes checks every output\n")
        page = adopter / "docs" / "index.md"
        page.write_text(page.read_text().replace("`the`{", "`cat`{"))
    return adopter, mkdocs_build(adopter, adopter / "site")


@pytest.fixture(scope="module")
def adopter_build(tmp_path_factory):
    return built_copy(tmp_path_factory.mktemp("adopter"), broken=False)


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    return built_copy(tmp_path_factory.mktemp("broken-adopter"), broken=True)


def test_it_builds_showing_its_own_outputs_with_their_downloads(adopter_build):
    """Catches the plugin depending on this site: its theme overrides, torch, the API index or the
    notebook page (the adopter has none of them)."""
    adopter, result = adopter_build
    assert result.returncode == 0, result.stderr
    page = (adopter / "site" / "index.html").read_text()
    assert "<code>the 3\nand 2\n</code>" in page
    assert '<a href="snippets/text/count.py" download>snippets/text/count.py</a>' in page
    assert (adopter / "site" / "snippets" / "text" / "reverse.py").is_file()


def test_a_drift_fails_its_build_naming_the_page_and_the_diff(broken_build):
    """Catches a drift check that only this site's configuration turns on, or a drift that is not a
    warning (the strict build would pass)."""
    adopter, result = broken_build
    assert result.returncode != 0
    line = (ADOPTER / "docs" / "index.md").read_text().splitlines().index('--8<-- "text/reverse.py"') + 1
    drifted = f"docs/index.md:{line}: snippets/text/reverse.py printed something other than its recorded output"
    assert f"WARNING -  fieldnotes: {drifted}" in result.stderr
    assert "-fieldnotes checks every output\n" in result.stderr and "+output every checks fieldnotes" in result.stderr
    assert "(printed by Python 3." in result.stderr
    assert "re-record it with: python -m fieldnotes.record snippets/text/reverse.py, and review" in result.stderr


def test_a_false_claim_fails_its_build(broken_build):
    """Catches a claim check that only this site turns on, or a false claim that is not a warning (the
    build beside it fails on the drift: both must be among the strict build's warnings)."""
    _, result = broken_build
    assert result.returncode != 0
    assert "the page claims snippets/text/count.py prints `cat`" in result.stderr
    claim = next(line for line in result.stderr.splitlines() if "the page claims" in line)
    assert claim.startswith("WARNING -  fieldnotes: ")


def test_adopting_takes_a_few_lines_and_no_torch():
    """Catches the adopter's configuration growing what only this site needs, or its code needing torch."""
    config = yaml_load((ADOPTER / "mkdocs.yml").read_text())
    assert config["plugins"] == ["fieldnotes"]
    code = [p.read_text() for p in (ADOPTER / "snippets").rglob("*.py")]
    assert code and not any("torch" in text for text in code)
