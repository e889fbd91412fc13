"""What the browser tests share: paths, the Chromium flags, the site's pages, the network Guard."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from axe_playwright_python.base import AXE_FILE_PATH

from tests.conftest import in_ci  # noqa: F401 - the browser tests import it here
from tests.site_pages import built_pages, page_id, site_pages  # noqa: F401 - the browser tests import them here

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = ROOT / "snippets"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
# Debian's headless build of Chromium (package chromium-headless-shell), the kind of browser Playwright
# runs headless by default: the same Blink as Debian's full `chromium`, without its browser UI, whose
# process does work at every page load that no test reads. The full one serves where it is all there is.
DEBIAN_CHROMIUMS = (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
# Names any other Chromium (a snap's, a Homebrew cask's, a Chrome for Testing download): it wins.
CHROMIUM_VARIABLE = "CHROMIUM"

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

# axe-core, as axe-playwright-python ships it, served by the test server at a path no page of the site
# has (conftest.py), for the page to load as a script: the browser then keeps the script and its compiled
# code in its cache, where the library's own run() sends the whole script again with every audit.
AXE_SCRIPT = AXE_FILE_PATH
AXE_URL_PATH = "/__axe-core__/axe.min.js"

# How long a test waits for the browser (a page load, an element, a condition) before failing: generous,
# because the suite runs beside builds and other tests on a 2-core machine; a waiting test costs nothing.
BUDGET_MS = 90_000

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}
DEFAULT_CONTEXT = {"viewport": DESKTOP, "color_scheme": "light"}
# The widths every page is visited at (page_visit.py), as context arguments.
WIDTHS = {"desktop": {}, "phone": {"viewport": PHONE, "is_mobile": True, "has_touch": True}}


@dataclass(frozen=True)
class ChosenChromium:
    """The Chromium the browser tests launch: `executable` for Playwright's `executable_path` (None:
    Playwright's own, which its launch finds itself), and what it is, for messages."""

    executable: Path | None
    name: str


class NoChromium(Exception):
    """No Chromium to run the browser tests with; the message says how to get one."""


MISSING_MESSAGE = (
    "no Chromium for the browser tests: install Playwright's (`.venv/bin/python -m playwright install "
    "chromium`), or Debian's (`apt-get install chromium-headless-shell`), or name one with CHROMIUM=/path"
)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def choose_chromium(
    environ: Mapping[str, str], playwright_chromium: Path | None, debian: Sequence[Path] = DEBIAN_CHROMIUMS
) -> ChosenChromium:
    """The browser the tests run in: the one CHROMIUM names; else Playwright's own, if installed
    (`playwright_chromium`, the path Playwright reports for it: `playwright install chromium` puts its
    headless shell beside it, which Playwright launches headless); else the first of Debian's found.
    A CHROMIUM that names no executable is an error, not a reason to pick another browser silently."""
    named = environ.get(CHROMIUM_VARIABLE, "").strip()
    if named:
        path = Path(named).expanduser()
        if not _executable(path):
            raise NoChromium(f"CHROMIUM={named} is not an executable file")
        return ChosenChromium(path, f"CHROMIUM={named}")
    if playwright_chromium is not None and _executable(playwright_chromium):
        return ChosenChromium(None, f"Playwright's own Chromium ({playwright_chromium})")
    for path in debian:
        if _executable(path):
            return ChosenChromium(path, f"Debian's {path}")
    raise NoChromium(MISSING_MESSAGE)


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
            + [f"request to another host: {u}" for u in self.foreign_requests]
        )

    def check(self) -> None:
        problems = self.problems()
        assert not problems, "The page misbehaved:\n  " + "\n  ".join(problems)


class GuardedContext:
    """A browser context whose every request leaving 127.0.0.1/localhost/data: is recorded (from the
    context's request events), and whose tab reports console errors and uncaught errors to a Guard.
    Chromium's resolver rule (CHROMIUM_ARGS) fails such a request; aborting it with `context.route`
    instead would turn the HTTP cache off, so that every page load fetched every asset again.

    One context serves many tests, one after the other, in one tab: each `new_page()` empties the tab
    (about:blank) and gives it a Guard of its own. Opening a tab costs as much as loading a page.
    """

    def __init__(self, context):
        self.context = context
        self.guard: Guard | None = None  # the Guard of the test using the tab now
        self._tab = None
        context.set_default_timeout(BUDGET_MS)
        context.on("request", self._request)

    def _request(self, request):
        parts = urlsplit(request.url)
        local = parts.scheme in {"http", "https"} and parts.hostname in LOCAL_HOSTS
        if not (local or parts.scheme in {"data", "blob"}) and self.guard is not None:
            self.guard.foreign_requests.append(request.url)

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
