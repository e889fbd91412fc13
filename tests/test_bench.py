"""The benchmark's own measuring code (bench/bench.py) measures what it says. Its timings are not tested:
the machines are shared and noisy, so `make bench` reports ratios and no test asserts a time."""

from __future__ import annotations

import functools
import gzip
import importlib.util
import threading
import urllib.request
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("bench", ROOT / "bench" / "bench.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_page_weights_cover_every_page_with_its_html_and_assets(built_site):
    rows = {name: (raw, gz, total, total_gz) for name, raw, gz, total, total_gz in bench.page_weights(built_site)}
    pages = {p.parent.relative_to(built_site).as_posix() for p in built_site.rglob("index.html")}
    assert set(rows) == {"(home)" if p == "." else p for p in pages}
    raw, gz, total, total_gz = rows["retain-grad"]
    assert raw == (built_site / "retain-grad" / "index.html").stat().st_size
    stylesheet = (built_site / "stylesheets" / "site.css").stat().st_size
    assert gz < raw and total >= raw + stylesheet and total_gz < total


@pytest.fixture
def gzip_server(built_site):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(bench._GzipHandler, directory=str(built_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_lighthouse_is_served_the_site_gzip_compressed_as_a_host_would(gzip_server, built_site):
    request = urllib.request.Request(f"{gzip_server}/retain-grad/", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["Content-Type"] == "text/html"
        assert gzip.decompress(response.read()) == (built_site / "retain-grad" / "index.html").read_bytes()
    with urllib.request.urlopen(f"{gzip_server}/stylesheets/site.css") as response:  # no Accept-Encoding
        assert response.headers.get("Content-Encoding") is None
        assert response.read() == (built_site / "stylesheets" / "site.css").read_bytes()


def test_plain_render_keeps_theme_and_markdown_but_none_of_our_plugins_or_hooks():
    """The baseline the author's wait is measured against: mkdocs-material alone on the same pages."""
    real = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    plain = bench.plain_config(ROOT)
    assert plain["markdown_extensions"] == real["markdown_extensions"]
    assert {k: v for k, v in plain["theme"].items() if k != "custom_dir"} == {
        k: v for k, v in real["theme"].items() if k != "custom_dir"
    }
    assert Path(plain["theme"]["custom_dir"]) == ROOT / "overrides" and Path(plain["docs_dir"]) == ROOT / "docs"
    assert [bench._plugin_name(p) for p in plain["plugins"]] == ["search"]
    assert "hooks" not in plain and plain["nav"] == real["nav"]


def test_a_rebuild_is_counted_even_when_mkdocs_does_not_repeat_its_message():
    """MkDocs logs each message once per process: a rebuild as long as the one before it, to the
    hundredth of a second, prints no "Documentation built in" (a serve log of two such rebuilds)."""
    log = (
        "INFO    -  Building documentation...\n"
        "INFO    -  Documentation built in 0.38 seconds\n"
        "INFO    -  [17:24:35] Serving on http://127.0.0.1:41611/\n"
        "INFO    -  [17:24:36] Detected file changes\n"
        "INFO    -  Building documentation...\n"
        "INFO    -  Documentation built in 0.35 seconds\n"
        "INFO    -  [17:24:36] Reloading browsers\n"
        "INFO    -  [17:24:36] Detected file changes\n"
        "INFO    -  Building documentation...\n"
        "INFO    -  [17:24:36] Reloading browsers\n"
        "INFO    -  [17:24:37] Detected file changes\n"
        "INFO    -  Building documentation...\n"
        "ERROR   -  An error happened during the rebuild. The server will appear stuck until build errors are\n"
    )
    assert bench.served_builds(log) == 3
    assert bench.served_builds("INFO    -  Building documentation...\n") == 0


def test_live_reload_of_the_plain_render_is_measured():
    """`mkdocs serve` of the plain render builds the copied project and rebuilds after each saved edit."""
    seconds = bench.live_reload_seconds(2, plain=True)
    assert seconds > 0


def test_the_rules_check_it_times_is_the_one_the_rules_page_runs():
    """Catches the bench timing some other file than the rules page's check (the 5 s budget would be
    measured on nothing)."""
    assert f'--8<-- "{bench.RULES_CHECK.removeprefix("snippets/")}"' in (ROOT / "docs" / "rules.md").read_text()


def test_a_failing_rules_check_is_not_timed_as_if_it_passed(monkeypatch):
    """Catches a bench that reports the time of a check that raised (a broken rule fails in well under 5 s)."""
    monkeypatch.setattr(bench, "RULES_CHECK", "snippets/retain_grad/requires_grad_false.py")  # raises on purpose
    with pytest.raises(SystemExit, match="requires_grad_false.py failed"):
        bench.rules_check_seconds(1)
