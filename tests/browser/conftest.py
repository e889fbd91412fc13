"""Browser tests: the built site in a real, offline Chromium (browser_site.choose_chromium: the one
CHROMIUM names, else Playwright's own, else Debian's).

- The site is the suite's one strict build of the real project (`built_site`, tests/conftest.py).
  The pages to test are read from the nav of mkdocs.yml, so a new page is covered without touching
  the tests, and tests/test_site_pages.py checks that the built site has exactly those pages.
- It is served on 127.0.0.1 only, by `http.server.ThreadingHTTPServer` on a free port, with a
  sitemap.xml listing that server's URLs (as `mkdocs serve` does), so navigation.instant works.
- Each page is loaded once per (width, colour scheme): every check of a page reads that visit
  (`page_visit`, page_visit.py).
- One Chromium per session, driven by Playwright's sync API (pytest-playwright is not used: its
  plugin would act on every test of the suite), launched with the network-isolation flags of
  shared/README.md; one shared context per configuration (desktop or phone, light or dark), whose
  one tab the tests take turns on (emptied to about:blank and given a fresh Guard for each test).
  Every request to a host other than 127.0.0.1/localhost (or data:) is recorded (and fails: the
  resolver flag); console errors and page errors are recorded; each test ends with `guard.check()`,
  which fails listing all of them.
- Without one the tests skip with a message saying how to get one; with CI=true, or with a CHROMIUM
  that names no executable, they fail instead.

With SCREENSHOTS=1 every visit also saves a full-page screenshot to test-artifacts/screenshots/
(gitignored), for a reviewer to look at; no check reads them, so a plain run takes none.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

import pytest
from browser_site import (
    AXE_SCRIPT,
    AXE_URL_PATH,
    CHROMIUM_ARGS,
    CHROMIUM_VARIABLE,
    DEFAULT_CONTEXT,
    SCREENSHOTS,
    WIDTHS,
    ChosenChromium,
    GuardedContext,
    NoChromium,
    choose_chromium,
    in_ci,
    page_id,
    site_pages,
)
from filelock import FileLock
from page_visit import Visit, record_visit
from playwright.sync_api import sync_playwright


def pytest_generate_tests(metafunc):
    """Parametrize `site_page` with every page of the site."""
    if "site_page" in metafunc.fixturenames:
        pages = site_pages()
        metafunc.parametrize("site_page", pages, ids=[page_id(p) for p in pages])


# --------------------------------------------------------------------------------------------------
# Chromium


@pytest.fixture(scope="session")
def _playwright():
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session", autouse=True)
def _chromium(_playwright) -> ChosenChromium:
    """The Chromium of this session (browser_site.choose_chromium). Autouse and session-scoped: it runs
    before the site is built or a browser launched, and skips every browser test where there is none."""
    try:
        return choose_chromium(os.environ, Path(_playwright.chromium.executable_path))
    except NoChromium as missing:
        if in_ci() or os.environ.get(CHROMIUM_VARIABLE, "").strip():
            pytest.fail(f"CI=true and {missing}" if in_ci() else str(missing), pytrace=False)
        pytest.skip(str(missing))


@pytest.fixture(scope="session")
def browser(_playwright, _chromium):
    """One headless Chromium for the whole session (the chosen one), with the network-isolation flags."""
    launched = _playwright.chromium.launch(
        executable_path=None if _chromium.executable is None else str(_chromium.executable), args=CHROMIUM_ARGS
    )
    yield launched
    launched.close()


# Every page loads the search index, and its search worker builds the index of the whole site at each
# load, on a core the checks need: it is the site's one index, the same on every page, and searching it
# is test_search.py's. A page visit asks for it with this header and gets it at the same address, with
# the same settings but no documents, so a page that fails to load it still fails its visit.
VISIT_HEADER = "X-Page-Visit"


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the built site; answers /sitemap.xml as `mkdocs serve` does, with this server's URLs; and
    serves axe-core at AXE_URL_PATH, for the accessibility audit (test_schemes.py) to load; and to the
    page visits (VISIT_HEADER), the search index without its documents.

    navigation.instant only intercepts links listed in the sitemap, under the address the site is
    served from. The built sitemap names the deployed site_url (or nothing, with no site_url), so
    instant navigation could not run on a test server without this (see test_sitemap_lists_every_page).
    """

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == AXE_URL_PATH:
            return self._send(AXE_SCRIPT.read_bytes(), "text/javascript", cache=True)
        index = Path(self.directory) / "search" / "search_index.json"
        if path == "/search/search_index.json" and self.headers.get(VISIT_HEADER) and index.is_file():
            return self._send(json.dumps({**json.loads(index.read_bytes()), "docs": []}).encode(), "application/json")
        if path != "/sitemap.xml":
            return super().do_GET()
        host, port = self.server.server_address[:2]
        origin = f"http://{self.headers.get('Host', f'{host}:{port}')}"
        urls = "".join(f"<url><loc>{origin}{escape(path)}</loc></url>" for path in site_pages())
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        ).encode()
        self._send(body, "application/xml")

    def _send(self, body: bytes, content_type: str, *, cache: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if cache:  # the same bytes all session: the browser need not ask again
            self.send_header("Cache-Control", "max-age=86400, immutable")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site, served on 127.0.0.1 on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=built_site))
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
    creating a context costs more than loading a page. Tests take turns on its tab."""
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
    """`new_guarded_page(**context_args)`: the tab of the shared context for those arguments, emptied,
    and a fresh Guard, e.g. `new_guarded_page(color_scheme="dark")`; desktop 1280 px and light by default."""
    return lambda **context_args: _shared_contexts(**context_args).new_page()


@pytest.fixture(scope="session")
def page_visit(_shared_contexts, built_site, screenshots_dir):
    """`page_visit(site_page, width="desktop", scheme="light")`: the one visit of that page in that
    configuration (page_visit.py), made the first time a test asks for it. The tests that read the
    visits of one configuration share its xdist group (page_visit.visit_group), so that no other worker
    visits the page again in that configuration."""
    visits = {}
    checked_styles = {}  # (width, scheme): the text styles whose contrast an audit has checked

    def visit(site_page: str, width: str = "desktop", scheme: str = "light") -> Visit:
        key = (site_page, width, scheme)
        if key not in visits:
            shared = _shared_contexts(**WIDTHS[width], color_scheme=scheme, extra_http_headers={VISIT_HEADER: "1"})
            page, guard = shared.new_page()
            visits[key] = record_visit(
                page,
                guard,
                site_page,
                width,
                scheme,
                built_site=built_site,
                screenshots_dir=screenshots_dir,
                checked_styles=checked_styles.setdefault((width, scheme), set()),
            )
        return visits[key]

    return visit


@pytest.fixture
def guarded(new_guarded_page):
    """The emptied tab (desktop 1280 px, light scheme) and a fresh Guard."""
    return new_guarded_page()


@pytest.fixture
def isolated_guarded_page(browser, context_args):
    """A page in a context of its own, for a test that leaves state behind (e.g. a stored palette)."""
    context = browser.new_context(**context_args, **DEFAULT_CONTEXT)
    yield GuardedContext(context).new_page()
    context.close()


@pytest.fixture(scope="session")
def screenshots_dir() -> Path | None:
    """With SCREENSHOTS=1, test-artifacts/screenshots/, emptied of the last run's screenshots once per run:
    by the first xdist worker to get here (the run's id marks it done), or by the one process without
    xdist. Otherwise None: no screenshots."""
    if os.environ.get("SCREENSHOTS", "").strip().lower() not in {"1", "true", "yes"}:
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", f"pid-{os.getpid()}")
    marker = SCREENSHOTS / ".run"
    with FileLock(SCREENSHOTS / ".lock"):
        if not marker.exists() or marker.read_text() != run:
            for old in [*SCREENSHOTS.rglob("*.png"), *SCREENSHOTS.rglob("*.jpg")]:
                old.unlink()
            marker.write_text(run)
    return SCREENSHOTS
