"""The site's pages as URL paths, read from the nav of mkdocs.yml (so tests can be parametrized before
the site is built) or from a built site: shared by the browser tests and the tests of the built HTML."""

from __future__ import annotations

import functools
from pathlib import Path

from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def site_pages() -> tuple[str, ...]:
    """Every page of the site's nav, as a URL path ("/", "/grad-is-none/", ...), read from mkdocs.yml so
    that tests can be parametrized before the site is built (test_site_pages.py checks the built site has
    exactly these pages)."""
    config = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return tuple(sorted(_page_url(source) for source in _nav_files(config["nav"])))


def built_pages(site: Path) -> list[str]:
    """Every page of a built site, as a URL path."""
    return sorted(
        "/" + f"{index.parent.relative_to(site).as_posix()}/".removeprefix("./") for index in site.rglob("index.html")
    )


def _nav_files(nav) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [f for value in nav.values() for f in _nav_files(value)]
    return [f for entry in nav for f in _nav_files(entry)]


def _page_url(source: str) -> str:
    # MkDocs' directory URLs: faq/index.md -> /faq/, grad-is-none.md -> /grad-is-none/, a notebook likewise.
    path = source.rsplit(".", 1)[0]
    path = "" if path == "index" else path.removesuffix("/index")
    return f"/{path}/" if path else "/"


def page_id(path: str) -> str:
    return "home" if path == "/" else path.strip("/")
