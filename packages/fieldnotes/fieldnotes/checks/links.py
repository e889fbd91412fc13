"""The link check (the plugin's `links` feature): every internal link and anchor of the written site resolves.

It runs once per build, after MkDocs has written every file, over the HTML files themselves: a link
is followed as a reader's browser follows it (relative to the page's own address, a folder meaning
its index.html), and a `#fragment` must be an id (or an `<a name>`) of the page it leads to, outside
any <template>. Every page's links count, the theme's navigation and the notebook page included.
External URLs are not fetched: the build is offline. Each broken link is a warning naming the page and
the link, which fails the strict build.

One pass of the standard library's tokenizer over the written site costs far less than parsing each page
into a tree (twice), as mkdocs-htmlproofer-plugin did, which it replaces. What a
page provides and links to is reused while its HTML is byte for byte the same (most pages, after a
prose edit), so a rebuild reads again only the pages that changed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mkdocs.plugins import get_plugin_logger

from fieldnotes import cache
from fieldnotes.cache import Store
from fieldnotes.features import Feature

log = get_plugin_logger("fieldnotes-links")

# The attributes that make a reader's browser go to, or load, another address.
_LINKING = {("a", "href"), ("area", "href"), ("link", "href"), ("img", "src"), ("script", "src"), ("source", "src")}


class _LinkTokenizer(HTMLParser):
    """The ids a page provides and the addresses it links to, in one pass of the tokenizer."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self._in_template = 0

    def handle_starttag(self, tag, attrs):
        if tag == "template":
            self._in_template += 1
        for name, value in attrs:
            if value is None:
                continue
            if (tag, name) in _LINKING:
                self.links.append(value)
            # A template's contents are inert: a fragment cannot land on an id inside one.
            elif not self._in_template and (name == "id" or (tag == "a" and name == "name")):
                self.ids.add(value)

    def handle_endtag(self, tag):
        if tag == "template" and self._in_template:
            self._in_template -= 1


@dataclass(frozen=True)
class PageLinks:
    ids: frozenset[str]  # what a #fragment may name
    links: tuple[str, ...]  # the addresses, in the page's order


def read_page(html: str) -> PageLinks:
    page = _LinkTokenizer()
    page.feed(html)
    page.close()
    return PageLinks(frozenset(page.ids), tuple(page.links))


_CODE = cache.code_digest(__file__)


def reused_reader(store: Store) -> Callable[[str], PageLinks]:
    """read_page, its result kept in the build's store by the page's HTML and this file's code."""

    def read(html: str) -> PageLinks:
        def parse() -> dict:
            page = read_page(html)
            return {"ids": sorted(page.ids), "links": page.links}

        found = store.memo(f"page links {_CODE}", html.encode(), parse)
        return PageLinks(frozenset(found["ids"]), tuple(found["links"]))

    return read


def broken_links(
    site_dir: Path, site_url: str | None = None, read: Callable[[str], PageLinks] = read_page
) -> list[tuple[str, str, str]]:
    """(page, link, why) for every link of the written site that leads nowhere; pages as site paths."""
    root_path = urlsplit(site_url or "/").path.rstrip("/") + "/"  # where the site lives on its host
    pages = {p.relative_to(site_dir).as_posix(): read(p.read_text(encoding="utf-8")) for p in site_dir.rglob("*.html")}
    problems = []
    for name, page in sorted(pages.items()):
        for link in dict.fromkeys(page.links):
            why = _why_broken(link, name, pages, site_dir, root_path)
            if why:
                problems.append((name, link, why))
    return problems


def _why_broken(link: str, page: str, pages: dict[str, PageLinks], site_dir: Path, root_path: str) -> str | None:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None  # another site (or mailto:, data:): not fetched, the build is offline
    fragment = unquote(parts.fragment)
    if not parts.path:
        target = page
    else:
        path = unquote(parts.path)
        if path.startswith("/"):
            if not path.startswith(root_path):
                return f"it leaves the site, which lives under {root_path}"
            path = path[len(root_path) :]
        else:
            path = posixpath.join(posixpath.dirname(page), path)
        target = posixpath.normpath(path) if path not in ("", ".") else "."
        if target == ".." or target.startswith("../"):
            return "it leads outside the site"
        if target == "." or (site_dir / target).is_dir():
            target = posixpath.normpath(posixpath.join(target, "index.html"))
        elif parts.path.endswith("/"):
            return f"the site has no folder {target}/"
        if not (site_dir / target).is_file():
            return f"the site has no {target}"
    if fragment and target in pages and fragment not in pages[target].ids:
        return f"{target} has no element with id {fragment!r}"
    return None


class LinkCheck(Feature):
    """The check of one build: it learns each page's source as the pages render, and reads the written
    site once every file is written."""

    order = 45

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sources: dict[str, str] = {}  # page's written file -> its source, to name it in a warning

    def on_page_content(self, html: str, page, config, files) -> str:
        self.sources[page.file.dest_uri] = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        return html

    def on_post_build(self, config) -> None:
        for page, link, why in broken_links(Path(config.site_dir), config.site_url, reused_reader(self.store)):
            where = f"{self.sources[page]} ({page})" if page in self.sources else page
            log.warning(f"{where}: broken link {link}: {why}")
