"""Every page says what it is: its title, its meta description, its sitemap entry; the site has exactly
the nav's pages; and every page shows the executed examples its Markdown holds. All read from the built
HTML, so they run without a browser (tests/browser/ checks what needs one)."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.site_pages import ROOT, built_pages, page_id, site_pages

MKDOCS_YML = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
SITE_NAME = re.search(r"^site_name:\s*(.+?)\s*$", MKDOCS_YML, re.MULTILINE)[1].strip("'\"")
_site_description = re.search(r"^site_description:\s*(.+?)\s*$", MKDOCS_YML, re.MULTILINE)
SITE_DESCRIPTION = _site_description[1].strip("'\"") if _site_description else None


class _Head(HTMLParser):
    """The <title>, the meta description and the first <h1> of a built page."""

    def __init__(self):
        super().__init__()
        self.title, self.description, self.h1 = "", None, ""
        self._in = None
        self._title_done = self._h1_done = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title" and not self._title_done:  # not an SVG's <title>
            self._in = "title"
        elif tag == "h1" and not self._h1_done:
            self._in = "h1"
        elif tag == "meta" and attrs.get("name") == "description":
            self.description = attrs.get("content")
        elif tag == "a" and self._in == "h1" and "headerlink" in (attrs.get("class") or ""):
            self._in = "headerlink"

    def handle_endtag(self, tag):
        if tag == "title" and self._in == "title":
            self._in, self._title_done = None, True
        elif tag == "a" and self._in == "headerlink":
            self._in = "h1"
        elif tag == "h1" and self._in == "h1":
            self._in, self._h1_done = None, True

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1 += data


def head(site: Path, path: str) -> _Head:
    parser = _Head()
    parser.feed((site / path.lstrip("/") / "index.html").read_text(encoding="utf-8"))
    parser.title, parser.h1 = parser.title.strip(), " ".join(parser.h1.split())
    return parser


SITE_PAGES = pytest.mark.parametrize("site_page", site_pages(), ids=page_id)


@SITE_PAGES
def test_page_has_meaningful_title_and_description(built_site, site_page):
    """A title naming the page and the site; a page-specific description (front matter `description:`)."""
    found = head(built_site, site_page)
    title, description = found.title, found.description
    assert title, f"{site_page}: empty <title>"
    assert SITE_NAME in title, f"{site_page}: the title {title!r} does not name the site ({SITE_NAME!r})"
    if site_page != "/":
        page_part = title.removesuffix(f" - {SITE_NAME}").strip()
        assert page_part and page_part != SITE_NAME, f"{site_page}: the title {title!r} names no page"
        # The nav title may be shorter than the heading ("retain_grad" for "retain_grad(): keep an
        # intermediate's gradient"), but they must share a word, or the tab says what the page does not.
        words = set(re.findall(r"[\w.]+", page_part.lower()))
        assert words & set(re.findall(r"[\w.]+", found.h1.lower())), (
            f"{site_page}: the title {title!r} shares no word with the heading {found.h1!r}"
        )
    assert description and len(description.strip()) >= 40, (
        f"{site_page}: <meta name=description> is missing or too short: {description!r}. "
        "Add a `description:` front matter block to the page."
    )
    if site_page != "/":
        assert description != SITE_DESCRIPTION, (
            f"{site_page}: <meta name=description> is the site-wide description; "
            "add a page-specific `description:` front matter block to the page."
        )


def test_titles_and_descriptions_are_unique_across_pages(built_site):
    titles = {path: head(built_site, path).title for path in site_pages()}
    descriptions = {path: head(built_site, path).description for path in site_pages()}
    for kind, values in (("title", titles), ("description", descriptions)):
        counts = Counter(values.values())
        shared = {p: v for p, v in values.items() if counts[v] > 1}
        listing = "\n".join(f"  {p}: {v!r}" for p, v in shared.items())
        assert not shared, f"pages sharing a {kind}:\n{listing}"


def test_built_site_has_exactly_the_nav_pages(built_site):
    """The page tests (here and in tests/browser) are parametrized from the nav: a page outside it would go
    untested."""
    assert built_pages(built_site) == list(site_pages())


def test_sitemap_lists_every_page(built_site):
    locs = [loc.text for loc in ET.parse(built_site / "sitemap.xml").getroot().iter() if loc.tag.endswith("loc")]
    assert locs, "the built sitemap.xml lists no page"
    base = min((urlsplit(loc).path for loc in locs), key=len)  # the home page's path
    listed = {"/" + urlsplit(loc).path.removeprefix(base) for loc in locs}
    missing = [path for path in site_pages() if path not in listed]
    assert not missing, f"pages missing from sitemap.xml: {missing}"


# An executed example in a page's Markdown: a python fence with exec="on" and title="snippets/..." (read
# here with a parser of the tests' own, not the plugin's).
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*python\b(?P<options>[^\n]*)$", re.MULTILINE)
_TITLE = re.compile(r'\btitle="(snippets/[^"]+)"')
_SHOWN_FILE = re.compile(r'<span class="filename"[^>]*>(.*?)</span>', re.DOTALL)


def source_examples(site_page: str) -> list[str] | None:
    """The snippet titles of the executed examples in the page's Markdown source (None: not a .md page)."""
    rel = site_page.strip("/")
    docs = ROOT / "docs"
    candidates = [docs / f"{rel}.md", docs / rel / "index.md"] if rel else [docs / "index.md"]
    for source in candidates:
        if source.is_file():
            fences = _FENCE.finditer(source.read_text(encoding="utf-8"))
            options = [f["options"] for f in fences if 'exec="on"' in f["options"]]
            return [m[1] for m in map(_TITLE.search, options) if m]
    return None


def shown_examples(site: Path, site_page: str) -> list[str]:
    """The snippet files a built page shows, by the file names above its code blocks, in page order."""
    text = (site / site_page.lstrip("/") / "index.html").read_text(encoding="utf-8")
    names = [" ".join(html.unescape(re.sub(r"<[^>]+>", "", m)).split()) for m in _SHOWN_FILE.findall(text)]
    return [n for n in names if n.startswith("snippets/")]


@SITE_PAGES
def test_page_shows_every_executed_example_of_its_markdown(built_site, site_page):
    """Catches an executed block that silently drops out of the page (the copy test, tests/browser/test_copy.py,
    then checks what each shown example's copy button copies)."""
    in_source = source_examples(site_page)
    if in_source is None:
        return  # the notebook page: no Markdown source
    assert shown_examples(built_site, site_page) == in_source, (
        f"{site_page}: its Markdown has the executed examples {in_source}, "
        f"the page shows {shown_examples(built_site, site_page)}"
    )
