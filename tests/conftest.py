"""Shared fixtures: the real site, built once per test run for every xdist worker, and small throwaway
projects for broken input."""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import tomllib
import traceback
import warnings
from pathlib import Path

import pytest
from _pytest.nodeid import coerce_node_id
from filelock import FileLock
from mkdocs.utils.yaml import yaml_load

from fieldnotes.cache import Store

ROOT = Path(__file__).resolve().parent.parent
BUILD_ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
# The repository the suite's build of the real site links its notebooks in (GitHub Actions sets its own).
TEST_REPOSITORY = os.environ.get("GITHUB_REPOSITORY") or "fieldnotes-tests/autograd-field-notes"


def in_ci() -> bool:
    """CI=true: a test whose tool (chromium, node) is missing fails instead of skipping."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _torch_pin() -> str:
    """The torch version pyproject.toml pins ("torch==X"): the one place the README's upgrade steps change."""
    for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        name, _, version = requirement.partition("==")
        if name.strip() == "torch":
            return version.strip()
    raise AssertionError("pyproject.toml pins no torch")


TORCH_PIN = _torch_pin()


def mkdocs_build(project: Path, site_dir: Path, *, env: dict | None = None) -> subprocess.CompletedProcess:
    """The strict build, as `make build` runs it, of the project in `project`, with its exit code and what
    `mkdocs` would print. It runs here, in the test's process: mkdocs, the plugins and the examples' fork
    server (with torch imported) load once per worker instead of once per build. Given `env`, it runs in
    a process of its own: an environment has to be there before anything is imported."""
    if env is not None:
        return build_in_a_process(project, site_dir, env=env)
    return _build_here(project, site_dir)


def build_in_a_process(project: Path, site_dir: Path, *, env: dict | None = None) -> subprocess.CompletedProcess:
    """The strict build in a `mkdocs` process of its own, with `env` added to the environment."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=project,
        env={**BUILD_ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,  # a build that takes longer has hung (an example no longer stopped, say)
    )


def _build_here(project: Path, site_dir: Path) -> subprocess.CompletedProcess:
    """`mkdocs build` through its own command line (`mkdocs.__main__.cli`), in this process: from the
    project's folder, with what it prints captured, and the logging and warning settings it changes
    put back, so that the next build starts as a new process would."""
    from mkdocs import __main__ as command_line
    from mkdocs.commands import build as build_command

    args = ["build", "--strict", "--site-dir", str(site_dir)]
    out, err = io.StringIO(), io.StringIO()
    logger = logging.getLogger("mkdocs")
    level, propagate, handlers = logger.level, logger.propagate, list(logger.handlers)
    filters = list(build_command.log.filters)  # each build adds a DuplicateFilter, which remembers messages
    wrapper = command_line.ColorFormatter.text_wrapper
    width, wrapper.width = wrapper.width, 0  # no wrapping at a terminal's width, as into a pipe
    folder, path = os.getcwd(), list(sys.path)
    code = 0
    try:
        os.chdir(project)  # mkdocs.yml and pymdownx.snippets' base_path are found from there
        # The environment's key reads sys.path (fieldnotes.cache.installed), which this process's tests
        # and the libraries they imported have extended (setuptools appends its vendored packages).
        sys.path[:] = [str(project), *_startup_path()]
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                command_line.cli.main(args=args, prog_name="mkdocs")
            except SystemExit as stop:  # click's exit, with mkdocs' exit code
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
            except Exception:  # noqa: BLE001 - what `python -m mkdocs` prints and exits with
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(folder)
        sys.path[:] = path
        wrapper.width = width
        logger.setLevel(level)
        logger.propagate = propagate
        logger.handlers[:] = handlers
        build_command.log.filters[:] = filters
    return subprocess.CompletedProcess(["mkdocs", *args], code, out.getvalue(), err.getvalue())


@functools.cache
def _startup_path() -> list[str]:
    """sys.path as a new interpreter starts with it, its first entry (the script's folder) left out."""
    code = "import json, sys; print(json.dumps(sys.path[1:]))"
    done = subprocess.run([sys.executable, "-c", code], env=BUILD_ENV, capture_output=True, check=True)
    return json.loads(done.stdout)


class RealSite:
    """The real site, built strictly once per test run into `folder`, shared by every pytest-xdist worker.

    `start()` begins the build in a background thread, so it overlaps the tests that do not need it;
    `get()` waits for it. A file lock makes one worker build while the others wait and then reuse the
    result, a failure included.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / "real-site"
        self._lock = FileLock(folder / "real-site.lock")
        self._log = folder / "real-site.log"  # the build's stderr, once it has finished
        self._failed = folder / "real-site.failed"
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._build_once, name="real-site-build", daemon=True)
            self._thread.start()

    def get(self) -> Path:
        self.start()
        self._thread.join()
        if self._failed.exists():
            raise RuntimeError(f"the strict build of the real site failed:\n{self._log.read_text()}")
        return self.path

    def _build_once(self) -> None:
        with self._lock:
            if self._log.exists():  # another worker built it
                return
            try:
                # in a thread beside the tests: not in this process; with a GitHub repository, as in CI, so
                # every page with a notebook shows its Open-in-Colab badge (tests/test_colab.py)
                result = build_in_a_process(ROOT, self.path, env={"GITHUB_REPOSITORY": TEST_REPOSITORY})
                log, ok = result.stderr, result.returncode == 0
            except Exception as error:  # a timeout, say: the tests waiting for the site must hear of it too
                log, ok = f"{type(error).__name__}: {error}", False
            if not ok:
                self._failed.touch()
            self._log.write_text(log)


def real_site(config: pytest.Config) -> RealSite:
    """This run's RealSite (one per process; its folder is shared by the run's xdist workers)."""
    if not hasattr(config, "_real_site"):
        base = config._tmp_path_factory.getbasetemp()
        config._real_site = RealSite(base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base)
    return config._real_site


def _needs_site(item: pytest.Item) -> bool:
    return "built_site" in getattr(item, "fixturenames", ())


# --------------------------------------------------------------------------------------------------
# Tiers. Every test gets exactly one marker, from what it uses, so that a new test file lands in its
# tier without being listed anywhere:
#   check    tooling (the lock across platforms, workflow lint, the bench's and under-load script's
#            self-tests, a smoke of `make mutants`): CHECK_FILES; `make check`
#   browser  tests/browser/: the built site in Chromium
#   build    builds the real site or a project (the `built_site` or `project` fixture, Project,
#            RealSite, mkdocs_build, build_in_a_process, `mkdocs` on a command line; mkdocs_build
#            builds in the test's process, but builds all the same) or runs another process
#            (subprocess), in the test, in a fixture it uses, or in a function of tests/
#            either one calls
#   fast     everything else: in-process unit tests and probes; `make test-fast`
# `make test` runs every tier but check.
TIERS = ("fast", "build", "browser", "check")
CHECK_FILES = {
    "test_lock.py", "test_workflow.py", "test_bench.py", "test_under_load.py", "test_tiers.py", "test_mutation.py"
}
BUILD_FIXTURES = {"built_site", "project"}
VISIT_FIXTURES = {"laptop_visit"}  # page_visit's tests name the group of their configuration
TESTS = str(ROOT / "tests")


def _calls_out(code, namespace: dict, seen: set) -> bool:
    """Whether `code` (a function's, with its nested functions and lambdas) builds or starts a process,
    itself or through a function of tests/ it names."""
    if code in seen:
        return False
    seen.add(code)
    for const in code.co_consts:
        if const == "mkdocs" or (hasattr(const, "co_names") and _calls_out(const, namespace, seen)):
            return True
    for name in code.co_names:
        value = namespace.get(name)
        if value is subprocess or value in (Project, mkdocs_build, build_in_a_process, RealSite):
            return True
        inner = getattr(value, "__wrapped__", value)
        written_here = hasattr(inner, "__code__") and inner.__code__.co_filename.startswith(TESTS)
        if written_here and _calls_out(inner.__code__, inner.__globals__, seen):
            return True
    return False


def _function_calls_out(function, seen: set) -> bool:
    function = getattr(function, "__wrapped__", function)
    return hasattr(function, "__code__") and _calls_out(function.__code__, function.__globals__, seen)


def _fixture_definitions(item: pytest.Item) -> list:
    info = getattr(item, "_fixtureinfo", None)
    return [
        definition for definitions in (info.name2fixturedefs.values() if info else ()) for definition in definitions
    ]


def _builds(item: pytest.Item) -> bool:
    if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    seen: set = set()
    functions = [getattr(item, "function", None), *(definition.func for definition in _fixture_definitions(item))]
    return any(_function_calls_out(function, seen) for function in functions)


def _module_builds(item: pytest.Item) -> list[str]:
    """The module-scoped fixtures of the test that build or start a process: pytest-xdist would make each
    again on every worker its module's tests of it land on."""
    return sorted(
        definition.argname
        for definition in _fixture_definitions(item)
        if definition.scope in ("module", "package") and _function_calls_out(definition.func, set())
    )


def tier(item: pytest.Item) -> str:
    """The tier of a test (see TIERS above)."""
    path = Path(str(item.path))
    if path.name in CHECK_FILES:
        return "check"
    if "browser" in path.parts[:-1]:
        return "browser"
    return "build" if _builds(item) else "fast"


class _XdistGroups:
    """What pytest-xdist 3.8's --dist loadgroup does and, under pytest 9, does not: it names each test's
    group at the end of its node id (`...::test_x@group`), the scheduler's key, by setting
    `item._nodeid`, which pytest 9 no longer reads (its node id is `item._id`). Without this, the tests
    of one group ran on both workers, and each made the group's module fixture again."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not getattr(config.option, "loadgroup", False):  # set in xdist workers only
            return
        for item in items:
            groups = {
                m.args[0] if m.args else m.kwargs.get("name", "default") for m in item.iter_markers("xdist_group")
            }
            if groups and "@" not in item.nodeid:
                item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(map(str, groups)))}")


def pytest_configure(config: pytest.Config) -> None:
    for name in TIERS:
        config.addinivalue_line("markers", f"{name}: a test of the {name} tier (tests/conftest.py, TIERS)")
    config.pluginmanager.register(_XdistGroups(), "fieldnotes-xdist-groups")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: each test gets its tier's marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(tier(item))
        # A browser fixture that loads each page once per worker: every test that reads it runs on one.
        for fixture in VISIT_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group(fixture))
        # Likewise a module's shared build: made once, on the one worker that runs the module's tests of it.
        shared = _module_builds(item)
        if shared and not item.get_closest_marker("xdist_group"):  # a group of its own already holds it
            module = Path(str(item.path)).relative_to(ROOT).as_posix()
            item.add_marker(pytest.mark.xdist_group(f"{module}::{'+'.join(shared)}"))
    # The tests that read the built site go last, so that the build (started below, in the background)
    # runs beside the tests that do not need it instead of holding them up. The sort is stable.
    items.sort(key=_needs_site)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """The run's last lines say how many tests were skipped, of how many, and why, one line per reason:
    a missing Chromium skips every browser test, which a passing run would otherwise hide."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    ran = sum(len(terminalreporter.stats.get(key, [])) for key in ("passed", "failed", "skipped", "xfailed", "xpassed"))
    reasons = collections.Counter(_skip_reason(report) for report in skipped)
    terminalreporter.write_sep("=", f"{len(skipped)} of {ran} tests skipped", yellow=True)
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"{count} skipped: {reason}")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def pytest_collection_finish(session: pytest.Session) -> None:
    if any(_needs_site(item) for item in session.items):
        real_site(session.config).start()


@pytest.fixture(scope="session")
def built_site(request) -> Path:
    """The real site, built strictly once per test run (see RealSite)."""
    try:
        return real_site(request.config).get()
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)


class Project:
    """A small project beside the real one: the real config and theme, with pages and snippets of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        shutil.copytree(ROOT / "overrides", path / "overrides")
        shutil.copytree(ROOT / "docs" / "stylesheets", path / "docs" / "stylesheets")
        shutil.copy(ROOT / "pyproject.toml", path / "pyproject.toml")  # the torch pin the build checks
        (path / "snippets").mkdir()
        self.config = yaml_load((ROOT / "mkdocs.yml").read_text())  # mkdocs' loader: it knows !ENV
        # Only what the examples need: no notebooks, no API index, no link checking of pages we don't have.
        self.config["plugins"] = [
            p for p in self.config["plugins"] if plugin_name(p) in ("search", "markdown-exec", "fieldnotes")
        ]
        self.feature("api_index", enabled=False)
        self.feature("links", enabled=False)
        self.pages: list[str] = []

    def page(self, name: str, text: str) -> None:
        (self.path / "docs" / name).write_text(text)
        self.pages.append(name)

    def snippet(self, name: str, code: str, recorded: str | None = None) -> None:
        """Write snippets/NAME and, if given, its recorded output."""
        path = self.path / "snippets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        if recorded is not None:
            path.with_suffix(".out").write_text(recorded)

    def set_option(self, plugin: str, **options) -> None:
        self.config["plugins"] = [
            {plugin: {**(p.get(plugin) or {}), **options}} if plugin_name(p) == plugin else p
            for p in self.config["plugins"]
        ]

    def feature(self, name: str, **options) -> None:
        """Set options of one of the fieldnotes plugin's features (api_index, links, notebook_pages)."""
        (entry,) = [p for p in self.config["plugins"] if plugin_name(p) == "fieldnotes"]
        entry["fieldnotes"][name] = {**entry["fieldnotes"].get(name, {}), **options}

    def write_config(self) -> None:
        self.config["nav"] = self.pages
        (self.path / "mkdocs.yml").write_text(json.dumps(self.config))  # JSON is YAML

    def build(self, env: dict | None = None) -> subprocess.CompletedProcess:
        self.write_config()
        return mkdocs_build(self.path, self.path / "site", env=env)


def plugin_name(entry) -> str:
    return entry if isinstance(entry, str) else next(iter(entry))


# The runs of snippets as a reader runs them, kept in the project's store (fieldnotes.cache) under keys
# no build makes or evicts, and reused only while the build's own `cache` setting in mkdocs.yml says so
# (FIELDNOTES_CACHE=false turns both off).
READER_RUNS = Store(
    ROOT,
    prefix="",
    reuse=next(
        (p["fieldnotes"] or {}).get("cache", True)
        for p in yaml_load((ROOT / "mkdocs.yml").read_text())["plugins"]
        if plugin_name(p) == "fieldnotes"
    ),
)


def reader_run_kind(name: str, test_file: str) -> str:
    """The cache kind of the reader's runs that `test_file` checks: it covers that file, so changing how
    the runs are made runs them all again."""
    return f"{name} {hashlib.sha256(Path(test_file).read_bytes()).hexdigest()}"


@pytest.fixture
def project(tmp_path) -> Project:
    """A Project in the test's folder."""
    return Project(tmp_path)


def block(snippet: str) -> str:
    """A page's executed block for snippets/SNIPPET, written as the real pages write it."""
    return f'```python exec="on" source="above" result="text" title="snippets/{snippet}"\n--8<-- "{snippet}"\n```\n'
