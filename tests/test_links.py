"""The strict build fails on a broken internal link or anchor, naming it (fieldnotes/checks/links.py, the
fieldnotes plugin's `links` feature, which checks the written site once per build).

A throwaway project uses the real mkdocs.yml and theme overrides with two small pages. To stay fast it
keeps only the plugins that matter for links (search, and fieldnotes with its link check alone), so
no example or notebook runs. The broken targets are ones MkDocs itself only reports at INFO level (a
relative link to a page that is not a Markdown file, an anchor missing on an existing page), so it is
the link checker that fails the build.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from fieldnotes.checks.links import broken_links
from tests.conftest import ROOT, mkdocs_build, plugin_name

KEPT_PLUGINS = ("search", "fieldnotes")
# The fieldnotes plugin with its link check alone: these pages have no examples.
LINKS_ONLY = {"execute": False, "api_index": {"enabled": False}, "links": {"enabled": True}}

GOOD_PAGE = "# Other\n\n## A real section\n\nText.\n"


def real_config() -> dict:
    return yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def build(tmp_path: Path, index: str, other: str = GOOD_PAGE) -> subprocess.CompletedProcess:
    """The strict build of a project in tmp_path (again, with its cache, if there was one)."""
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides", dirs_exist_ok=True)
    shutil.copytree(ROOT / "docs" / "stylesheets", tmp_path / "docs" / "stylesheets", dirs_exist_ok=True)
    (tmp_path / "docs" / "index.md").write_text(index, encoding="utf-8")
    (tmp_path / "docs" / "other.md").write_text(other, encoding="utf-8")
    config = real_config()
    config["plugins"] = [
        {"fieldnotes": LINKS_ONLY} if plugin_name(p) == "fieldnotes" else p
        for p in config["plugins"]
        if plugin_name(p) in KEPT_PLUGINS
    ]
    config["nav"] = ["index.md", "other.md"]
    (tmp_path / "mkdocs.yml").write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return mkdocs_build(tmp_path, tmp_path / "site")


def test_link_checker_is_enabled():
    """Catches the real site's build leaving out the link check."""
    (options,) = [p["fieldnotes"] for p in real_config()["plugins"] if plugin_name(p) == "fieldnotes"]
    assert options.get("links", {}).get("enabled", True)


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
    assert "fieldnotes-links" in output and named in output, f"the link checker did not name {named!r}:\n{output}"
    assert "docs/index.md" in output, f"the link checker did not name the page:\n{output}"


def test_a_rebuild_finds_an_anchor_that_went_away_from_an_unchanged_page(tmp_path):
    """Catches a rebuild that reuses what it read of a page by anything less than the page's whole HTML
    (its address, say): the linking page is the same, the section it links to was renamed."""
    index = "# Home\n\n[its section](other.md#a-real-section).\n"
    assert build(tmp_path, index).returncode == 0
    result = build(tmp_path, index, other=GOOD_PAGE.replace("A real section", "A renamed section"))
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "#a-real-section" in output, output


# What the checker reads: the written HTML, as a browser follows it.

OTHER = '<h1 id="other">Other</h1><a name="old-name"></a><template><p id="inert"></p></template>'


def site(tmp_path: Path, index: str) -> Path:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "index.html").write_text(OTHER, encoding="utf-8")
    (tmp_path / "logo.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text(index, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "link",
    [
        '<a href="other/">',
        '<a href="other/index.html#other">',
        '<a href="./other/#old-name">',
        '<a href="/site/other/">',  # absolute, under the site's address
        '<a href="#top">',
        '<img src="logo.png">',
        '<a href="https://example.invalid/nowhere">',  # another site: not fetched (offline)
        '<a href="mailto:someone@example.invalid">',
    ],
)
def test_links_that_resolve_pass(tmp_path, link):
    assert broken_links(site(tmp_path, f'<p id="top">{link}</p>'), "http://127.0.0.1/site/") == []


@pytest.mark.parametrize(
    ("link", "why"),
    [
        ('<a href="missing/">', "no folder missing/"),
        ('<a href="other/#inert">', "no element with id 'inert'"),  # inside a <template>: inert
        ('<a href="#nowhere">', "index.html has no element with id 'nowhere'"),
        ('<img src="missing.png">', "no missing.png"),
        ('<link rel="stylesheet" href="missing.css">', "no missing.css"),
        ('<script src="missing.js"></script>', "no missing.js"),
        ('<a href="/elsewhere/other/">', "leaves the site"),
        ('<a href="../outside.html">', "outside the site"),
    ],
)
def test_broken_links_are_found_with_why(tmp_path, link, why):
    problems = broken_links(site(tmp_path, f"<p>{link}</p>"), "http://127.0.0.1/site/")
    assert len(problems) == 1 and problems[0][0] == "index.html" and why in problems[0][2], problems
