"""Open in Colab (fieldnotes.features.colab): which repository the badge links, the badge on every page
that offers a notebook, and publishing the built notebooks to the branch Colab reads them from."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin

import pytest
from mkdocs.structure.files import File, Files

from fieldnotes.features.colab import BADGE_URI, Colab, publish, repository
from tests.conftest import TEST_REPOSITORY, TORCH_PIN

COLAB = "https://colab.research.google.com/github/"


def test_the_repository_comes_from_the_option_else_github_actions():
    """Catches GITHUB_REPOSITORY not read (CI would show no badge), read over the option, or a badge
    made with no repository at all (a link that opens nothing)."""
    assert repository("", {"GITHUB_REPOSITORY": "owner/repo"}) == "owner/repo"
    assert repository("me/mine", {"GITHUB_REPOSITORY": "owner/repo"}) == "me/mine"
    assert repository("", {}) == ""


def _page_and_files(tmp_path):
    plugins = SimpleNamespace(_current_plugin="fieldnotes")
    config = SimpleNamespace(site_dir=str(tmp_path / "site"), use_directory_urls=True, plugins=plugins)
    page_file = File("faq/x.md", str(tmp_path), str(tmp_path / "site"), True)
    versions = File("versions.md", str(tmp_path), str(tmp_path / "site"), True)
    files = Files([page_file, versions, File.generated(config, BADGE_URI, content="<svg/>")])
    return SimpleNamespace(file=page_file), files


def test_the_badge_follows_the_heading_and_opens_the_pages_notebook(tmp_path):
    """Catches the badge linked to another path than the page's notebook, to another branch, its image
    fetched from another host, or the sentence on Colab's torch (and its link) dropped."""
    page, files = _page_and_files(tmp_path)
    colab = Colab("owner/repo", "nb", "versions.md", "torch 2.13.0")
    colab.notebooks = {"faq/x.md": "notebooks/faq-x.ipynb"}
    out = colab.on_page_content("<h1>X</h1><p>lead</p>", page, None, files)
    heading, badge, lead = re.fullmatch(r"(<h1>X</h1>)(<p class=\"open-in-colab\".*?</p>)(<p>lead</p>)", out).groups()
    assert f'href="{COLAB}owner/repo/blob/nb/notebooks/faq-x.ipynb"' in badge
    assert 'src="../../assets/fieldnotes/colab-badge.svg"' in badge
    assert "may print differently from torch 2.13.0" in badge
    assert '<a href="../../versions/">' in badge


def test_no_repository_or_no_notebook_no_badge(tmp_path):
    """Catches a badge shown where no URL would open (no repository) or on a page without a notebook."""
    page, files = _page_and_files(tmp_path)
    for colab, notebooks in ((Colab("", "nb"), {"faq/x.md": "n.ipynb"}), (Colab("o/r", "nb"), {})):
        colab.notebooks = notebooks
        assert colab.on_page_content("<h1>X</h1>", page, None, files) == "<h1>X</h1>"


def test_every_page_with_a_notebook_opens_that_download_in_colab(built_site):
    """On the real site (built with a repository, tests/conftest.py): every page that offers an .ipynb
    download shows one badge, linking that very file of the built site; the notebook's first cell names
    the pinned torch; no other page has a badge. Catches a page left without a badge (the exercise, a
    notebook page), a badge linking a path the publishing step does not write, or the note dropped."""
    pages = sorted(built_site.rglob("index.html"))
    with_notebook = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        downloads = {
            re.search(r'href="([^"]+)"', tag)[1] for tag in re.findall(r"<a\s[^>]*>", text) if _ipynb_download(tag)
        }
        badges = re.findall(rf'<p class="open-in-colab"[^>]*><a href="{COLAB}([^"]+)"', text)
        where = page.relative_to(built_site).as_posix()
        if not downloads:
            assert not badges, f"{where}: a badge without a notebook"
            continue
        with_notebook += 1
        assert len(badges) == 1, f"{where}: {len(badges)} badges"
        repo, _, path = badges[0].partition("/blob/notebooks/")
        assert repo == TEST_REPOSITORY
        page_url = "http://site/" + page.parent.relative_to(built_site).as_posix() + "/"
        offered = {urljoin(page_url, link).removeprefix("http://site/") for link in downloads}
        assert path in offered, f"{where}: Colab opens {path}, the page offers {offered}"
        first_cell = __import__("json").loads((built_site / path).read_text())["cells"][0]
        assert f"torch {TORCH_PIN}" in "".join(first_cell["source"]), f"{path}: first cell names no torch"
    assert with_notebook >= 20


def _ipynb_download(tag: str) -> bool:
    return bool(re.search(r"\sdownload[\s=>]", tag) and re.search(r'href="[^"]+\.ipynb"', tag))


def _git(*args, cwd=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def built(tmp_path) -> Path:
    """A built site's stand-in: two notebooks, and pages that are not."""
    site = tmp_path / "site"
    (site / "notebooks").mkdir(parents=True)
    (site / "exercise" / "x").mkdir(parents=True)
    (site / "notebooks" / "a.ipynb").write_text('{"cells": []}')
    (site / "exercise" / "x" / "x.ipynb").write_text('{"cells": [1]}')
    (site / "index.html").write_text("<html></html>")
    return site


def test_publishing_writes_the_notebooks_to_the_branch_as_one_commit_each_time(built, tmp_path):
    """Against a local bare repository: the branch holds exactly the site's notebooks, at their paths in
    the site (the paths the badges link); a second publish of the same notebooks pushes nothing; a changed
    one is a new commit on top of the last (a fast-forward: nothing is forced). Catches a page copied into
    the branch, a notebook at another path, or history rewritten on each publish."""
    remote = tmp_path / "remote.git"
    _git("init", "--bare", "--quiet", str(remote))
    assert publish(built, str(remote), "notebooks")
    tree = _git("ls-tree", "-r", "--name-only", "notebooks", cwd=remote).split()
    assert tree == ["exercise/x/x.ipynb", "notebooks/a.ipynb"]
    assert _git("show", "notebooks:notebooks/a.ipynb", cwd=remote) == '{"cells": []}'
    first = _git("rev-parse", "notebooks", cwd=remote).strip()
    assert not publish(built, str(remote), "notebooks")
    assert _git("rev-parse", "notebooks", cwd=remote).strip() == first
    (built / "notebooks" / "a.ipynb").write_text('{"cells": [2]}')
    (built / "exercise" / "x" / "x.ipynb").unlink()
    assert publish(built, str(remote), "notebooks")
    assert _git("rev-parse", "notebooks~1", cwd=remote).strip() == first
    assert _git("ls-tree", "-r", "--name-only", "notebooks", cwd=remote).split() == ["notebooks/a.ipynb"]
