"""The site builds under ProperDocs too, the second platform (ARCHITECTURE.md, "Platforms past
mkdocs-material's end of life"): ProperDocs reads the same mkdocs.yml and runs the same plugins, its
`mkdocs.*` imports redirected to its own modules, and every page's article must come out as MkDocs'
build writes it (the suite's one strict build of the real site)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import BUILD_ENV, ROOT, TEST_REPOSITORY
from tests.site_pages import built_pages

_ARTICLE = re.compile(r'<article class="md-content__inner[^"]*">(?P<html>.*?)</article>', re.DOTALL)


def article(site: Path, page: str) -> str | None:
    """The article of the page at URL path `page` ("/faq/"): what a reader reads of it."""
    found = _ARTICLE.search((site / page.lstrip("/") / "index.html").read_text(encoding="utf-8"))
    return found["html"] if found else None


def test_properdocs_writes_every_page_as_mkdocs_does(built_site, tmp_path):
    """Catches the site or the plugin relying on something of MkDocs 1.6 that ProperDocs does not keep:
    a strict ProperDocs build that fails, a page one of the two builds leaves out, or a page whose
    article differs (an output, a title link, a rewrite or a plugin's markup lost on the way)."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "--site-dir", str(site)],
        cwd=ROOT,
        env={**BUILD_ENV, "GITHUB_REPOSITORY": TEST_REPOSITORY},  # as the suite's MkDocs build: Colab badges
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    pages = built_pages(built_site)
    assert built_pages(site) == pages
    assert all(article(built_site, page) for page in pages), "a page of MkDocs' build has no article"
    differing = [page for page in pages if article(site, page) != article(built_site, page)]
    assert not differing, f"ProperDocs writes these pages' articles differently from MkDocs: {differing}"
