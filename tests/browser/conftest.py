"""Browser tests: the built site in a real, offline Chromium (Debian's /usr/bin/chromium).

- The site is built once per session with the strict build into a temporary folder, or taken from
  the environment variable SITE_DIR when it is set (a folder holding an already built site).
  It is built at collection time, because the pages to test are discovered from the built site
  (every `index.html` under it), so a new page is covered without touching the tests.
- It is served on 127.0.0.1 only, by `http.server.ThreadingHTTPServer` on a free port, with a
  sitemap.xml listing that server's URLs (as `mkdocs serve` does), so navigation.instant works.
- One Chromium per session, driven by Playwright's sync API (pytest-playwright is not used: its
  plugin would act on every test of the suite), launched with the network-isolation flags of
  shared/README.md; one shared context per configuration (desktop or phone, light or dark); a fresh
  page per test. Every request to a host other than 127.0.0.1/localhost (or data:) is recorded and
  aborted with `context.route`; console errors and page errors are recorded; each test ends with
  `guard.check()`, which fails listing all of them.
- Without /usr/bin/chromium the tests skip with a message; with CI=true they fail instead.

Screenshots go to test-artifacts/screenshots/ (gitignored), for a reviewer to look at.
"""

from __future__ import annotations

import functools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

import pytest
from browser_site import (
    BUILT,
    CHROMIUM,
    CHROMIUM_ARGS,
    DEFAULT_CONTEXT,
    MISSING_MESSAGE,
    SCREENSHOTS,
    GuardedContext,
    SiteUnavailable,
    chromium_missing,
    in_ci,
    page_id,
    site_dir,
    site_pages,
)
from playwright.sync_api import sync_playwright


def pytest_unconfigure(config):
    for path in BUILT:
        shutil.rmtree(path, ignore_errors=True)


def pytest_generate_tests(metafunc):
    """Parametrize `site_page` with every page of the built site."""
    if "site_page" not in metafunc.fixturenames:
        return
    if chromium_missing():
        # Do not build a site that no browser will open; the tests skip (or, in CI, fail) as below.
        metafunc.parametrize("site_page", ["/"], ids=["chromium-missing"])
        return
    try:
        pages = site_pages()
    except SiteUnavailable:
        # Collected anyway, so that each test fails with the reason (see _require_chromium_and_site).
        metafunc.parametrize("site_page", ["/"], ids=["no-site"])
        return
    metafunc.parametrize("site_page", pages, ids=[page_id(p) for p in pages])


# --------------------------------------------------------------------------------------------------
# Chromium


@pytest.fixture(scope="session", autouse=True)
def _require_chromium_and_site():
    # Session-scoped, so it runs before the session's browser fixtures try to launch anything.
    if chromium_missing():
        if in_ci():
            pytest.fail(f"CI=true and {MISSING_MESSAGE}")
        pytest.skip(MISSING_MESSAGE)
    try:
        site_dir()
    except SiteUnavailable as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the whole session, with the network-isolation flags."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the built site; answers /sitemap.xml as `mkdocs serve` does, with this server's URLs.

    navigation.instant only intercepts links listed in the sitemap, under the address the site is
    served from. The built sitemap names the deployed site_url (or nothing, with no site_url), so
    instant navigation could not run on a test server without this (see test_sitemap_lists_every_page).
    """

    def do_GET(self):
        if urlsplit(self.path).path != "/sitemap.xml":
            return super().do_GET()
        host, port = self.server.server_address[:2]
        origin = f"http://{self.headers.get('Host', f'{host}:{port}')}"
        urls = "".join(f"<url><loc>{origin}{escape(path)}</loc></url>" for path in site_pages())
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def site_url():
    """The built site, served on 127.0.0.1 on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=site_dir()))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def context_args(site_url):
    """What every context gets: relative URLs resolve against the site; the copy test reads the clipboard."""
    return {"base_url": site_url, "permissions": ["clipboard-read", "clipboard-write"]}


@pytest.fixture(scope="session")
def _shared_contexts(browser, context_args):
    """One guarded context per configuration (viewport, scheme...), shared by the whole session:
    creating a context costs more than loading a page. Tests get a fresh page each."""
    contexts: dict[str, GuardedContext] = {}

    def get(**args) -> GuardedContext:
        options = {**context_args, **DEFAULT_CONTEXT, **args}
        key = repr(sorted(options.items()))
        if key not in contexts:
            contexts[key] = GuardedContext(browser.new_context(**options))
        return contexts[key]

    yield get
    for shared in contexts.values():
        shared.context.close()


@pytest.fixture
def new_guarded_page(_shared_contexts):
    """`new_guarded_page(**context_args)`: a fresh page (and its Guard) in the shared context for
    those arguments, e.g. `new_guarded_page(color_scheme="dark")`; desktop 1280 px and light by default.
    Closed after the test."""
    pages = []

    def make(**context_args):
        page, guard = _shared_contexts(**context_args).new_page()
        pages.append(page)
        return page, guard

    yield make
    for page in pages:
        page.close()


@pytest.fixture
def guarded(new_guarded_page):
    """A fresh page (desktop 1280 px, light scheme) and its Guard."""
    return new_guarded_page()


@pytest.fixture
def isolated_guarded_page(browser, context_args):
    """A page in a context of its own, for a test that leaves state behind (e.g. a stored palette)."""
    context = browser.new_context(**context_args, **DEFAULT_CONTEXT)
    yield GuardedContext(context).new_page()
    context.close()


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    """test-artifacts/screenshots/, emptied of the last run's screenshots once per session."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in [*SCREENSHOTS.rglob("*.png"), *SCREENSHOTS.rglob("*.jpg")]:
        old.unlink()
    return SCREENSHOTS
