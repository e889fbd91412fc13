"""`make bench`: what the build and the pages cost, as ratios against baselines measured in the same run.

The machines are shared and noisy, so every time is the median of several runs, and every target is a
ratio to a baseline measured right beside it (its runs interleaved with the measured ones), never an
absolute number:

- plain render = the same pages built by mkdocs-material alone: mkdocs.yml's theme and Markdown
  extensions, but none of markdown-exec, fieldnotes, mkdocs-jupyter or the hooks (only the search
  plugin); the notebook is then a plain file, not a page. What an author waits for is measured
  against it: the warm build (every example a cache hit) and the live reload of a one-line prose edit
  under `mkdocs serve` (against the plain render's own live reload), both targets <= 2.0; the cold
  build (caches emptied) too;
- the cold build against its compute floor: the CPU seconds of every example's own run (each snippet,
  the rules check among them, and the exercise notebook; `bench/example_cpu.py`), their sum spread
  over the cores or the longest one, whichever is more, plus the build with example execution switched
  off (FIELDNOTES_EXECUTE=false: nothing is run, pages show the recorded outputs), target <= 1.25; the
  examples that cost most are listed;
- the execution-off build and live reload beside the warm build and reload, for comparison;
- per page: HTML bytes raw and gzipped, and everything a first visit loads;
- the build's peak memory, set-up from an empty virtualenv, and the test suite's own time, wall and
  CPU seconds (user + sys of the whole process tree, which a busy machine changes less): `make
  test-fast` and `make test` with caches warm (targets 30 s and 150 s of wall time on 2 cores),
  `make check`, and `make test` with nothing reused;
- with --lighthouse, Lighthouse's performance score per page: desktop once, mobile the median of --runs
  runs (installs lighthouse from npm into .cache/lighthouse; needs node and /usr/bin/chromium).

Run from the project root: `python bench/bench.py [--runs N] [--quick] [--lighthouse]`. Everything it
prints is also written to bench/RESULTS.md, headed by the commit it measured.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import io
import json
import os
import re
import resource
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psutil
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parent.parent
CACHES = [ROOT / ".cache" / "fieldnotes", ROOT / ".cache" / "mkdocs-jupyter"]  # what a cold build starts without
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
NO_EXEC = {"FIELDNOTES_EXECUTE": "false"}
NO_REUSE = {"FIELDNOTES_CACHE": "false"}
TARGETS = {"warm": 2.0, "reload": 2.0}  # against the plain render
COLD_TARGET = 1.25  # cold build against its compute floor
SUITE_TARGETS = {"test-fast": 30, "test": 150}  # wall seconds, caches warm, on 2 cores
EXERCISE = "docs/exercise/vanishing_gradients.py"  # executed by mkdocs-jupyter at build time
RESULTS = ROOT / "bench" / "RESULTS.md"
RULES_CHECK = "snippets/rules/rules.py"  # the rules page's check of every rule on random programs
RULES_TARGET = 5.0  # seconds it may add to a cold build
# What the plain render keeps of mkdocs.yml's plugins: none of ours, nor markdown-exec or mkdocs-jupyter.
PLAIN_PLUGINS = ("search",)
PAGE_LIMIT = 100_000
FAILURE_TAIL = 6000  # characters of a failed command's output shown: pytest's summary of failures


def run(cmd: list[str], *, env: dict | None = None, cwd: Path = ROOT) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes, summed over the whole process tree) of one command. Its output
    goes to a file, not a pipe (a pipe nobody reads while it runs stalls a chatty command), and a failure
    shows its end: what pytest or MkDocs said went wrong."""
    with tempfile.TemporaryFile() as output:
        start = time.perf_counter()
        proc = psutil.Popen(cmd, cwd=cwd, env={**ENV, **(env or {})}, stdout=output, stderr=subprocess.STDOUT)
        peak = 0
        while proc.poll() is None:
            try:
                peak = max(peak, sum(p.memory_info().rss for p in [proc, *proc.children(recursive=True)]))
            except psutil.Error:
                pass
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        if proc.returncode:
            output.seek(0)
            said = output.read().decode(errors="replace")[-FAILURE_TAIL:]
            sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{said}")
    return elapsed, peak


def cpu_and_wall(cmd: list[str], *, env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + sys of the command and every process it waited for) of one
    command, run as `run` runs it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, _ = run(cmd, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def plain_config(project: Path) -> dict:
    """mkdocs.yml of `project` as the plain render builds it: same theme and Markdown extensions, none of
    the plugins that execute, check or rewrite pages, no hooks; not strict (unexecuted blocks leave what
    reads as a broken link). Paths are absolute, so the file can be written anywhere."""
    config = yaml_load((project / "mkdocs.yml").read_text(encoding="utf-8"))  # resolves !ENV as MkDocs does
    config["plugins"] = [p for p in config["plugins"] if _plugin_name(p) in PLAIN_PLUGINS]
    config.pop("hooks", None)
    config["strict"] = False
    config["docs_dir"] = str(project / config.get("docs_dir", "docs"))
    config["theme"]["custom_dir"] = str(project / config["theme"]["custom_dir"])
    return config


def _plugin_name(entry) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


def build(site: Path, *, env: dict | None = None, cold: bool = False, config: Path | None = None) -> tuple[float, int]:
    if cold:
        for cache in CACHES:
            shutil.rmtree(cache, ignore_errors=True)
    options = ["--strict"] if config is None else ["--config-file", str(config)]
    return run([sys.executable, "-m", "mkdocs", "build", *options, "--site-dir", str(site)], env=env)


@contextlib.contextmanager
def caches_set_aside():
    """The caches moved aside while the cold builds run, and put back after them: what the cold builds
    stored stays, and every other entry comes back (the test suite's own runs of the snippets are stored
    there too: without them, the next `make test` would run every snippet again)."""
    aside = ROOT / ".cache" / f"bench-aside-{os.getpid()}"
    moved = {cache: aside / cache.name for cache in CACHES if cache.exists()}
    aside.mkdir(parents=True, exist_ok=True)
    for cache, parked in moved.items():
        cache.rename(parked)
    try:
        yield
    finally:
        for cache, parked in moved.items():
            shutil.copytree(parked, cache, dirs_exist_ok=True, copy_function=_copy_new)
        shutil.rmtree(aside, ignore_errors=True)


def _copy_new(source: str, target: str) -> None:
    if not os.path.exists(target):
        shutil.copy2(source, target)


def median_of(runs: int, measure) -> float:
    return statistics.median(measure()[0] for _ in range(runs))


def rules_check_seconds(runs: int) -> float:
    """The rules check run as the build runs it, forked from a server that has already imported torch. It
    runs beside the other examples, so its time is the most it can add to a cold build."""
    from fieldnotes import runner

    runner.start_server()

    def once() -> tuple[float]:
        start = time.perf_counter()
        done = runner.run_snippet(ROOT, RULES_CHECK, timeout=120)
        if done.exit_code:
            sys.exit(f"{RULES_CHECK} failed:\n{done.output}")
        return (time.perf_counter() - start,)

    return median_of(runs, once)


def side_by_side(runs: int, *measures) -> list[float]:
    """The median seconds of each measure, their runs interleaved, so that the machine's load drifting
    during the bench weighs on each alike."""
    times: list[list[float]] = [[] for _ in measures]
    for _ in range(runs):
        for spent, measure in zip(times, measures, strict=True):
            spent.append(measure()[0])
    return [statistics.median(spent) for spent in times]


EDITS = 2  # prose edits saved in one `mkdocs serve` (its first build is not what an author waits for)


def copy_of_project(project: Path) -> Path:
    """The project's files and the build's caches, copied to `project` (.cache/ holds drift-report's
    environments too, gigabytes of torch)."""
    skip = shutil.ignore_patterns(".venv", ".git", ".cache", "site", "lighthouse", "test-artifacts")
    shutil.copytree(ROOT, project, ignore=skip)
    for cache in CACHES:
        if cache.exists():
            shutil.copytree(cache, project / cache.relative_to(ROOT))
    return project


def live_reload_seconds(runs: int, env: dict | None = None, plain: bool = False) -> float:
    """Median seconds from saving a one-line prose edit to the end of the rebuild `mkdocs serve` does (of
    the plain render of the same pages, if `plain`), in a copy of the project with its caches."""
    with tempfile.TemporaryDirectory() as tmp:
        project = copy_of_project(Path(tmp) / "project")
        config = project / "mkdocs.yml"
        if plain:
            config = Path(tmp) / "plain.yml"
            config.write_text(json.dumps(plain_config(project)), encoding="utf-8")  # JSON is YAML
        page = project / "docs" / "retain-grad.md"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log_path = Path(tmp) / "serve.log"
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "serve", "--config-file", str(config), "-a", f"127.0.0.1:{port}"],
                cwd=project,
                env={**ENV, **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:

            def built_count() -> int:
                return served_builds(log_path.read_text())

            _wait(lambda: built_count() >= 1, "the first build", log_path)
            times = []
            for n in range(runs):
                before = built_count()
                start = time.perf_counter()
                page.write_text(page.read_text() + f"\nEdited prose line {n}.\n")
                _wait(lambda before=before: built_count() > before, "the rebuild", log_path)
                times.append(time.perf_counter() - start)
            return statistics.median(times)
        finally:
            server.terminate()
            server.wait(timeout=30)


def served_builds(log: str) -> int:
    """How many builds `mkdocs serve` has finished and sent to the browser, from its log: the first build,
    then one "Reloading browsers" per rebuild. (Not "Documentation built in N seconds": MkDocs logs a
    message only once per process, so a rebuild as long as an earlier one, to the hundredth, is silent.)"""
    served = log.count("Serving on http")
    return served + log.count("Reloading browsers") if served else 0


def _wait(predicate, what: str, log_path: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.05)


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") in ("stylesheet", "icon", "preload") and attrs.get("href"):
            self.urls.append(attrs["href"])
        elif tag in ("script", "img") and attrs.get("src"):
            self.urls.append(attrs["src"])


def page_weights(site: Path) -> list[tuple[str, int, int, int, int]]:
    """Per page: HTML raw and gzip bytes, first-visit total raw and gzip (HTML + its CSS, JS, images)."""
    rows = []
    for html_file in sorted(site.rglob("index.html")):
        if html_file.parent.name in ("404",):
            continue
        text = html_file.read_bytes()
        parser = _Assets()
        parser.feed(text.decode())
        total, total_gz = len(text), len(gzip.compress(text))
        for url in dict.fromkeys(parser.urls):
            if re.match(r"^(https?:|data:|//)", url):
                continue
            asset = (html_file.parent / url.split("?")[0].split("#")[0]).resolve()
            if asset.is_file():
                data = asset.read_bytes()
                total += len(data)
                total_gz += len(gzip.compress(data))
        name = html_file.parent.relative_to(site).as_posix()
        rows.append((name if name != "." else "(home)", len(text), len(gzip.compress(text)), total, total_gz))
    return rows


class _GzipHandler(SimpleHTTPRequestHandler):
    """Serves the built site gzip-compressed, as static hosts (GitHub Pages among them) do."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


LIGHTHOUSE = ROOT / ".cache" / "lighthouse"
# Chromium's network isolation (shared/README.md): nothing but 127.0.0.1 resolves.
CHROME_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync "
    "'--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'"
)


def lighthouse_scores(site: Path, pages: list[str], mobile_runs: int) -> dict[str, tuple[float, list[float]]]:
    """Lighthouse's performance score of each page: desktop once, mobile `mobile_runs` times (about 15 s a
    run). Mobile simulates a 4x slower CPU from the time each task took here, so on a shared machine one
    run can lose a few points that the next one keeps; Lighthouse's own guidance (docs/variability.md) is
    to take the median of several runs. Desktop, unthrottled, has scored 1.00 on every page in every run."""
    binary = LIGHTHOUSE / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        subprocess.run(["npm", "install", "--silent", "--prefix", str(LIGHTHOUSE), "lighthouse"], check=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_GzipHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def score(url: str, preset: list[str]) -> float:
        done = subprocess.run(
            [
                str(binary),
                url,
                *preset,
                "--only-categories=performance",
                "--output=json",
                "--output-path=stdout",
                "--quiet",
                f"--chrome-flags={CHROME_FLAGS}",
            ],
            env={**ENV, "CHROME_PATH": "/usr/bin/chromium"},
            capture_output=True,
            text=True,
        )
        if done.returncode:
            sys.exit(f"lighthouse failed on {url}: {shlex.join(done.args)}\n{done.stderr[-2000:]}")
        return json.loads(done.stdout)["categories"]["performance"]["score"]

    scores = {}
    try:
        for name in pages:
            url = f"http://127.0.0.1:{server.server_address[1]}/{'' if name == '(home)' else name + '/'}"
            scores[name] = (score(url, ["--preset=desktop"]), [score(url, []) for _ in range(mobile_runs)])
    finally:
        server.shutdown()
    return scores


def example_costs() -> dict[str, float]:
    """CPU seconds of each example's own run, torch already imported (bench/example_cpu.py): every snippet
    the build runs (the rules check among them) and the exercise notebook."""
    snippets = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.py"))
    examples = [s for s in snippets if not Path(s).name.startswith("_")] + [EXERCISE]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "example_cpu.py"), *examples],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(f"measuring the examples' CPU time failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def compute_floor(costs: dict[str, float], cores: int) -> float:
    """The least time the examples' own runs need on `cores` cores: their sum spread over the cores, or the
    longest one alone, whichever is more."""
    return max(sum(costs.values()) / cores, max(costs.values(), default=0.0))


def measured_commit() -> str:
    """The commit measured, and whether the work tree had changes beside it."""
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    status = ["git", "status", "--porcelain", "--untracked-files=no"]
    dirty = subprocess.run(status, cwd=ROOT, capture_output=True, text=True)
    commit = head.stdout.strip() or "(not a git checkout)"
    return commit + (" with uncommitted changes" if dirty.stdout.strip() else "")


class Report:
    """What the bench prints, kept to be written to bench/RESULTS.md as well."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        print(line, flush=True)
        self.lines.append(line)

    def write(self, path: Path, heading: str) -> None:
        body = "\n".join(self.lines).rstrip("\n")
        path.write_text(f"# make bench\n\n{heading}\n\n```text\n{body}\n```\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per timing (median reported)")
    parser.add_argument("--quick", action="store_true", help="skip the test suite and the set-up timing")
    parser.add_argument("--lighthouse", action="store_true", help="also Lighthouse scores (needs node, npm, Chromium)")
    args = parser.parse_args()
    n = args.runs
    cores = os.cpu_count() or 1
    commit = measured_commit()
    say = Report()
    say(f"bench: medians of {n} runs, {cores} cores, torch/Python as installed in {sys.prefix}")
    say(f"options: {' '.join(sys.argv[1:]) or '(none)'}\n")

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        plain_yml = Path(tmp) / "plain.yml"
        plain_yml.write_text(json.dumps(plain_config(ROOT)), encoding="utf-8")  # JSON is YAML
        plain_site = Path(tmp) / "plain-site"
        costs = example_costs()
        with caches_set_aside():
            cold_runs = [build(site, cold=True) for _ in range(n)]
        cold = statistics.median(t for t, _ in cold_runs)
        peak_rss = max(rss for _, rss in cold_runs)
        plain, warm, no_exec = side_by_side(
            n, lambda: build(plain_site, config=plain_yml), lambda: build(site), lambda: build(site, env=NO_EXEC)
        )
        reload_plain, reload_exec, reload_no_exec = side_by_side(
            n,
            lambda: (live_reload_seconds(EDITS, plain=True),),
            lambda: (live_reload_seconds(EDITS),),
            lambda: (live_reload_seconds(EDITS, env=NO_EXEC),),
        )
        rules_check = rules_check_seconds(n)
        build(site)  # the site measured below is the real one
        weights = page_weights(site)
        if args.lighthouse:
            scores = lighthouse_scores(site, [name for name, *_ in weights], n)

    compute = compute_floor(costs, cores)
    floor = compute + no_exec
    total = sum(costs.values())
    say(f"{'plain render (mkdocs-material alone)':44} {plain:7.2f} s   live reload {reload_plain:.2f} s")
    say(f"{'build, execution off':44} {no_exec:7.2f} s   live reload {reload_no_exec:.2f} s")
    say(f"{'examples run, CPU seconds: sum':44} {total:7.2f} s   ({len(costs)} examples, torch imported)")
    say(f"{'  sum / cores':44} {total / cores:7.2f} s   longest {max(costs.values()):.2f} s")
    say(f"{'compute floor = max(sum/cores, longest)':44} {compute:7.2f} s")
    say(f"{'  + build, execution off':44} {floor:7.2f} s\n")
    say(f"{'':44} {'seconds':>9} {'/ plain':>8} {'target':>7}  {'/ execution off':>16}")
    for key, label, seconds, baseline, no_exec_of in [
        ("warm", "warm build, every example cached", warm, plain, no_exec),
        ("reload", "live reload after a prose edit (serve)", reload_exec, reload_plain, reload_no_exec),
    ]:
        ratio = seconds / baseline
        verdict = "ok" if ratio <= TARGETS[key] else "OVER"
        target = f"<= {TARGETS[key]}"
        say(f"{label:44} {seconds:7.2f} s {ratio:8.2f} {target:>7} {verdict:4}  {seconds / no_exec_of:16.2f}")
    verdict = "ok" if cold / floor <= COLD_TARGET else "OVER"
    say(
        f"{'cold full build':44} {cold:7.2f} s   / compute floor + execution off {cold / floor:.2f}"
        f"  (target <= {COLD_TARGET}: {verdict})"
    )
    say(f"{'peak memory of the cold build (RSS, tree)':44} {peak_rss / 2**20:7.0f} MiB")
    verdict = "ok" if rules_check <= RULES_TARGET else "OVER"
    label = "rules check, at most added to a cold build"
    say(f"{label:44} {rules_check:7.2f} s   target <= {RULES_TARGET:g} s  {verdict}\n")

    say("examples that cost most (CPU seconds of their own run, share of the sum):")
    for path, seconds in sorted(costs.items(), key=lambda item: -item[1])[:6]:
        say(f"  {path:58} {seconds:6.2f} s {seconds / total:6.1%}")
    say()

    say(f"{'page':40} {'HTML':>9} {'gzip':>8} {'1st visit':>10} {'gzip':>8}")
    for name, raw, gz, total_raw, total_gz in weights:
        flag = "" if raw <= PAGE_LIMIT else f"   over {PAGE_LIMIT // 1000} KB"
        say(f"{name:40} {raw:9,} {gz:8,} {total_raw:10,} {total_gz:8,}{flag}")
    say()

    if not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            # The Makefile's own set-up (bootstrap uv, install the lock), into an empty virtualenv.
            start = time.perf_counter()
            done = subprocess.run(
                ["make", "--no-print-directory", "venv", f"VENV={tmp}/venv"], cwd=ROOT, capture_output=True, text=True
            )
            if done.returncode:
                sys.exit(f"set-up failed: {shlex.join(done.args)}\n{done.stdout}{done.stderr}")
            setup = time.perf_counter() - start
        # The suite as a contributor runs it: first with nothing reused, as on a fresh clone, then each
        # tier again, as a contributor's next run.
        make = ["make", "--no-print-directory"]
        suite = [("make test, nothing reused (a fresh clone)", None, cpu_and_wall([*make, "test"], env=NO_REUSE))]
        for target in ("test-fast", "test", "check"):
            suite.append((f"make {target}, caches warm", SUITE_TARGETS.get(target), cpu_and_wall([*make, target])))
        say(f"{'set-up from an empty virtualenv (make venv)':44} {setup:7.1f} s   (target <= 30 s; uv cache as found)")
        say(f"{'the suite':44} {'wall':>7}   {'CPU':>7}   (wall targets on 2 cores)")
        for label, target, (wall, cpu) in suite:
            say(f"{label:44} {wall:7.1f} s {cpu:7.1f} s" + (f"   (target <= {target} s)" if target else ""))
    if args.lighthouse:
        say(f"\n{'Lighthouse performance':40} {'desktop':>8} {'mobile':>8}   (targets 1.0 and >= 0.95)")
        say(f"{'':40} {'':>8} {'median':>8}   (each of the {n} mobile runs)")
        for name, (desktop, mobile) in scores.items():
            median = statistics.median(mobile)
            verdict = "ok" if desktop == 1 and median >= 0.95 else "OVER"
            runs = " ".join(f"{s:.2f}" for s in mobile)
            say(f"{name:40} {desktop:8.2f} {median:8.2f}   ({runs}) {verdict}")
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    say.write(RESULTS, f"Measured at commit {commit}, {stamp}, by `python bench/bench.py {' '.join(sys.argv[1:])}`.")
    print(f"\nwritten to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
