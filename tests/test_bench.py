"""The benchmark's own measuring code (bench/bench.py) measures what it says. Its timings are not tested:
the machines are shared and noisy, so `make bench` reports ratios and no test asserts a time."""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import subprocess
import sys
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


def test_the_compute_floor_is_the_cores_share_of_the_sum_or_the_longest_example():
    """Catches a floor that only divides the sum (one long example cannot be split over cores) or that
    only takes the longest (many short ones still fill every core)."""
    assert bench.compute_floor({"a.py": 3.0, "b.py": 1.0}, cores=2) == 3.0
    assert bench.compute_floor({"a.py": 1.0, "b.py": 1.0, "c.py": 1.0, "d.py": 1.0}, cores=2) == 2.0


def _cpu_of(tmp_path: Path, **snippets: str) -> dict[str, float]:
    for name, code in snippets.items():
        (tmp_path / f"{name}.py").write_text(code)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "example_cpu.py"), *(f"{name}.py" for name in snippets)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_an_examples_cost_is_the_cpu_time_of_its_own_run_not_its_wait(tmp_path):
    """Catches wall time counted as cost (a sleeping example would look expensive, and a busy machine would
    raise the floor) and a cost that misses the example's own work."""
    costs = _cpu_of(
        tmp_path,
        busy="import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4:\n    pass\n",
        sleepy="import time\ntime.sleep(1.0)\n",
        raises="raise ValueError('shown on purpose')\n",
    )
    assert costs["busy.py"] >= 0.4
    assert costs["sleepy.py"] < 0.4
    assert set(costs) == {"busy.py", "sleepy.py", "raises.py"}  # an example that raises still counts


def test_an_example_killed_by_a_signal_stops_the_measurement(tmp_path):
    """Catches a cost reported for a run that never finished (a crash would read as a cheap example)."""
    (tmp_path / "crash.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "example_cpu.py"), "crash.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "crash.py ended with -9" in done.stderr


def test_the_report_is_written_with_the_commit_it_measured(tmp_path):
    """Catches figures written without the commit they belong to, or lines lost between screen and file."""
    say = bench.Report()
    say("warm build 1.05 s")
    say("cold build 12.5 s")
    results = tmp_path / "RESULTS.md"
    say.write(results, f"Measured at commit {bench.measured_commit()}.")
    text = results.read_text()
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert f"Measured at commit {head.stdout.strip()}" in text
    assert "warm build 1.05 s\ncold build 12.5 s\n" in text


def test_a_failing_command_shows_the_end_of_what_it_printed():
    """Catches the bench hiding why a step failed (its `make test` went to /dev/null: "failed (2)" and
    nothing else), and a pipe that a long, chatty command fills while nobody reads it."""
    code = "import sys\nfor i in range(20000): print('line', i)\nprint('the reason', file=sys.stderr)\nsys.exit(3)"
    with pytest.raises(SystemExit) as stopped:
        bench.run([sys.executable, "-c", code])
    message = str(stopped.value.code)
    assert message.startswith("failed (3)") and message.rstrip().endswith("the reason")
    assert "line 19999" in message


def test_the_reload_copies_the_project_with_its_build_caches_only(tmp_path, monkeypatch):
    """Catches the live-reload copy taking all of .cache/, where `make drift-report` keeps its environments
    (4.5 GB for torch 2.14.1: the copy took 100 s of the test suite), or leaving the build's caches out
    (the first rebuild would then run every example)."""
    root = tmp_path / "root"
    for path in ["docs/index.md", ".cache/fieldnotes/entry.json", ".cache/drift-report/torch-9/lib.so"]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x")
    monkeypatch.setattr(bench, "ROOT", root)
    monkeypatch.setattr(bench, "CACHES", [root / ".cache" / "fieldnotes", root / ".cache" / "mkdocs-jupyter"])
    copied = bench.copy_of_project(tmp_path / "copy")
    assert (copied / "docs" / "index.md").exists() and (copied / ".cache" / "fieldnotes" / "entry.json").exists()
    assert not (copied / ".cache" / "drift-report").exists()


def test_an_example_timed_writes_nothing_into_the_project(tmp_path):
    """Catches the costs run in the example's own folder: the exercise, run as a script, saves its figures
    where it runs, which left figure-*.svg files in docs/exercise/ after each `make bench`. A helper
    beside the example still imports."""
    (tmp_path / "_helper.py").write_text("NAME = 'figure-1.svg'\n")
    code = "from _helper import NAME\nopen(NAME, 'w').write('<svg/>')\n"
    assert set(_cpu_of(tmp_path, saves=code)) == {"saves.py"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_helper.py", "saves.py"]


def test_the_suites_time_counts_the_cpu_of_every_process_it_started():
    """Catches the suite's CPU seconds read from the command alone (make's: nearly nothing, while its
    pytest workers spin), or wall time reported as CPU time (a sleeping command would look busy)."""
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5:\n    pass\n"
    grandchild = f"import subprocess, sys, time\nsubprocess.run([sys.executable, '-c', {spin!r}])\ntime.sleep(0.5)\n"
    wall, cpu = bench.cpu_and_wall([sys.executable, "-c", grandchild])
    assert cpu >= 0.5, "the grandchild's CPU seconds are missing"
    assert wall >= 1.0 and cpu < wall, "wall and CPU time mixed up"


def test_the_cold_builds_leave_every_other_cache_entry_in_place(tmp_path, monkeypatch):
    """Catches cold builds that delete the caches for good: the suite's runs of the snippets live in
    .cache/fieldnotes too, and a `make test` after `make bench` ran every snippet again."""
    caches = [tmp_path / ".cache" / "fieldnotes", tmp_path / ".cache" / "mkdocs-jupyter"]
    monkeypatch.setattr(bench, "ROOT", tmp_path)
    monkeypatch.setattr(bench, "CACHES", caches)
    caches[0].mkdir(parents=True)
    (caches[0] / "standalone.json").write_text("the suite's")
    (caches[0] / "build.json").write_text("old")
    with bench.caches_set_aside():
        assert not caches[0].exists()  # each cold build starts without them
        caches[0].mkdir()
        (caches[0] / "build.json").write_text("new")
    assert (caches[0] / "standalone.json").read_text() == "the suite's"
    assert (caches[0] / "build.json").read_text() == "new"
    assert not caches[1].exists() and sorted(p.name for p in (tmp_path / ".cache").iterdir()) == ["fieldnotes"]
