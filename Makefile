# Every target sets up .venv from requirements.lock first (once, and again when the lock changes), with
# uv, which the first run installs from PyPI into .venv: a machine needs only Python and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV := $(BIN)/uv
UV_VERSION := 0.13.9
INSTALLED := $(VENV)/.installed
LOCK_FILE := requirements.lock
export NO_MKDOCS_2_WARNING := 1
# uv uses the Python it is given (PYTHON, .venv's) and never downloads one of its own.
export UV_PYTHON_DOWNLOADS := never
# uv installs no bytecode by default; where PYTHONDONTWRITEBYTECODE is set (as on this project's machines)
# every process would then compile what it imports (`import torch` took twice as long). Compiling at
# install costs a few seconds, once.
export UV_COMPILE_BYTECODE := 1

# Linux installs torch's CPU build, which is not on PyPI. Where pip is given a folder of wheels
# (PIP_FIND_LINKS: this project's machines keep torch's CPU wheel there, and cannot reach PyTorch's
# index), uv gets the same folder, as it does not read pip's settings. Elsewhere PyTorch's CPU index
# is asked only for what PyPI does not have (torch==X+cpu): every other package still comes from PyPI.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
ifdef PIP_FIND_LINKS
export UV_FIND_LINKS ?= $(PIP_FIND_LINKS)
else
export UV_INDEX ?= https://pypi.org/simple $(TORCH_INDEX)
export UV_INDEX_STRATEGY ?= unsafe-first-match
endif

.PHONY: serve build test test-engine test-fast check test-no-cache update-outputs drift-report bench under-load lock venv uv-settings clean

# Not strict: a drifted example shows its diff on the page instead of stalling the server.
serve: $(INSTALLED)
	FIELDNOTES_STRICT=false $(BIN)/python -m mkdocs serve --dev-addr 127.0.0.1:8000

build: $(INSTALLED)
	$(BIN)/python -m mkdocs build --strict --site-dir site

# The suite's tiers: every test is marked fast, build, browser or check by what it uses (tests/conftest.py,
# TIERS), so a new test lands in its tier without being listed. One pytest-xdist worker per core (a second
# per core made `make test` slower: each worker collects the suite and starts its own servers); tests that
# share an expensive fixture name an xdist_group. PYTHONDONTWRITEBYTECODE is cleared for the suite alone:
# with it set, pytest rewrites every test module's asserts again in every worker of every run.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadgroup

# The whole suite but the tooling checks: the engine's own tests, then the site's, the strict build of
# the real site and the browser included.
test: $(INSTALLED) test-engine
	$(PYTEST) -m "not check"

# The engine's own tests (packages/fieldnotes/tests), in an environment of their own without torch:
# the distribution with its `test` extra (the hosts it is built under), the versions both share held to
# the site's lock.
ENGINE_ENV := .cache/engine-tests
test-engine: $(ENGINE_ENV)/.installed
	cd packages/fieldnotes && PYTHONDONTWRITEBYTECODE= ../../$(ENGINE_ENV)/bin/python -m pytest

$(ENGINE_ENV)/.installed: $(LOCK_FILE) packages/fieldnotes/pyproject.toml $(UV)
	$(UV) venv --quiet --allow-existing --python $(BIN)/python $(ENGINE_ENV)
	$(UV) pip install --quiet --python $(ENGINE_ENV)/bin/python -c $(LOCK_FILE) -e "packages/fieldnotes[test]"
	touch $@

# The edit loop: in-process unit tests and probes; nothing built, no browser, no other process started
# by the test (the examples' fork server still runs them).
test-fast: $(INSTALLED)
	$(PYTEST) -m fast

# Tooling: the lock across platforms and Pythons, the workflow's lint, the bench's and under-load
# script's self-tests, the tiers themselves, `make mutants` on one function. CI runs it beside `make test`.
check: $(INSTALLED)
	$(PYTEST) -m check

# The tests that build, again with nothing reused (FIELDNOTES_CACHE=false: the plugin's `cache: false`),
# in one process per worker. Not run by CI: tests/test_cache.py and tests/test_reuse.py prove what
# `cache: false` does; this is for a change to the cache itself.
NO_CACHE_TESTS := tests/test_cache.py tests/test_reuse.py tests/test_api_index.py tests/test_build_failures.py \
	tests/test_graph.py tests/test_record.py tests/test_page_blocks.py tests/test_store.py tests/test_shard.py tests/test_adopter.py tests/test_integrations.py
test-no-cache: $(INSTALLED)
	FIELDNOTES_CACHE=false $(PYTEST) -p no:cacheprovider $(NO_CACHE_TESTS)

# Re-record every example's expected output (snippets/**/*.out) after a deliberate change;
# `make update-outputs SNIPPET=snippets/faq/in_place.py` records just that one (a folder: those under it).
update-outputs: $(INSTALLED)
	$(BIN)/python -m fieldnotes.record $(SNIPPET)

# What another torch changes, recording nothing: `make drift-report TORCH=2.14.1` (or a wheel's path)
# installs it with the rest of the lock into .cache/drift-report/ (DRIFT_ENV=DIR: elsewhere), runs every
# example and the exercise under it, prints and writes the report (DRIFT_JSON=FILE); on a drift the report
# exits 1 (and make, as for any failed recipe, 2).
drift-report: $(INSTALLED)
	@test -n "$(TORCH)" || { echo "usage: make drift-report TORCH=VERSION (or a wheel's path)" >&2; exit 2; }
	$(BIN)/python -m fieldnotes.torch.drift.report --torch $(TORCH) $(if $(DRIFT_ENV),--env $(DRIFT_ENV)) \
		$(if $(DRIFT_JSON),--json $(DRIFT_JSON))

# Build and page costs as ratios to baselines measured in the same run (not part of `make test`).
# `make bench BENCH="--runs 5 --lighthouse"` passes options (bench/bench.py --help).
bench: $(INSTALLED)
	$(BIN)/python bench/bench.py $(BENCH)

# `make test` beside HOGS processes that spin on a core each, as on a busy laptop or shared runner.
HOGS ?= 2
under-load: $(INSTALLED)
	$(BIN)/python bench/under_load.py --hogs $(HOGS) $(UNDER_LOAD)

# Regenerate requirements.lock from pyproject.toml: one file for every platform and Python the project
# supports, told apart by environment markers (tests/test_lock.py resolves it for each). Versions
# already in the lock are kept unless pyproject.toml rules them out; `make lock LOCK=--upgrade` lifts them.
# The engine (packages/fieldnotes/) is installed from the checkout, not from the lock: its own
# dependencies are locked, it is not.
# Every dependency group of pyproject.toml (PEP 735) goes into the one lock, with the project's own list.
LOCK_GROUPS = $(shell $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["dependency-groups"])')
lock: $(UV)
	$(UV) pip compile pyproject.toml $(addprefix --group ,$(LOCK_GROUPS)) --universal --quiet --no-annotate --custom-compile-command "make lock" \
		--no-emit-package fieldnotes $(LOCK) --output-file $(LOCK_FILE)

# Only the set-up (bench/bench.py times it into an empty VENV).
venv: $(INSTALLED)

# Where uv looks for packages (above), for tests/test_lock.py.
uv-settings:
	@env | grep '^UV_'

# Again when this file changes: it pins uv's version.
$(UV): Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	touch $@

$(INSTALLED): $(LOCK_FILE) pyproject.toml packages/fieldnotes/pyproject.toml $(UV)
	$(UV) pip install --quiet --python $(BIN)/python -r $(LOCK_FILE)
	$(UV) pip install --quiet --python $(BIN)/python --no-deps -e packages/fieldnotes
	touch $@

clean:
	rm -rf site .cache

# Mutation testing of the modules that hold the engine's guarantees (mutation/modules.toml lists them and
# the fast tests run against each): writes mutation/REPORT.md, and fails on a survivor that neither a
# test kills nor mutation/equivalent.toml explains. `make mutants MUTANTS=fieldnotes/cache.py`: one module
# (the committed report is left as it is). `make check` runs it on one function (tests/test_mutation.py).
.PHONY: mutants
mutants: $(INSTALLED)
	$(BIN)/python mutation/run.py $(MUTANTS)
