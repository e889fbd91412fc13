"""What the browser tests share: paths, the Chromium flags, the site's pages, the network Guard."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")

# Exactly the flags of shared/README.md: without the resolver rule Chromium looks up Google's hosts on
# its own; without `EXCLUDE 127.0.0.1` the page fails to load and the error page queries public DNS.
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}

# The page's own content (search results are <article>s too).
CONTENT = "article.md-content__inner"

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}
DEFAULT_CONTEXT = {"viewport": DESKTOP, "color_scheme": "light"}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def chromium_missing() -> bool:
    return not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK))


MISSING_MESSAGE = (
    f"{CHROMIUM} not found: the browser tests need Debian's Chromium "
    "(apt-get install -y chromium; never `playwright install`)."
)


# --------------------------------------------------------------------------------------------------
# The built site and its pages


@functools.cache
def site_pages() -> tuple[str, ...]:
    """Every page of the site's nav, as a URL path ("/", "/grad-is-none/", ...), read from mkdocs.yml so
    that tests can be parametrized before the site is built (test_pages checks the built site has
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


@dataclass
class Guard:
    """What a page did that it must not: console errors, uncaught errors, requests leaving the host."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"console error: {m}" for m in self.console_errors]
            + [f"page error: {m}" for m in self.page_errors]
            + [f"request to another host (aborted): {u}" for u in self.foreign_requests]
        )

    def check(self) -> None:
        problems = self.problems()
        assert not problems, "The page misbehaved:\n  " + "\n  ".join(problems)


class GuardedContext:
    """A browser context whose every request leaving 127.0.0.1/localhost/data: is recorded and aborted
    (with `context.route`), and whose tab reports console errors and uncaught errors to a Guard.

    One context serves many tests, one after the other, in one tab: each `new_page()` empties the tab
    (about:blank) and gives it a Guard of its own. Opening a tab costs as much as loading a page.
    """

    def __init__(self, context):
        self.context = context
        self.guard: Guard | None = None  # the Guard of the test using the tab now
        self._tab = None
        context.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        parts = urlsplit(url)
        local = parts.scheme in {"http", "https"} and parts.hostname in LOCAL_HOSTS
        if local or parts.scheme in {"data", "blob"}:
            route.continue_()
            return
        if self.guard is not None:
            self.guard.foreign_requests.append(url)
        route.abort("blockedbyclient")

    def new_page(self):
        """The context's tab, on an empty document, and the Guard that records what it does wrong."""
        if self._tab is None or self._tab.is_closed():
            self._tab = tab = self.context.new_page()

            def console(message):
                if message.type == "error" and self.guard is not None:
                    self.guard.console_errors.append(f"{tab.url}: {message.text}")

            def page_error(error):
                if self.guard is not None:
                    self.guard.page_errors.append(f"{tab.url}: {error}")

            tab.on("console", console)
            tab.on("pageerror", page_error)
        self.guard = None  # whatever the last test's page does while it unloads is not this test's
        self._tab.goto("about:blank")
        self.guard = Guard()
        return self._tab, self.guard
