# Every target sets up .venv from requirements.lock first (once, and again when the lock changes).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test update-outputs bench lock clean

# Not strict: a drifted example shows its diff on the page instead of stalling the server.
serve: $(INSTALLED)
	FIELDNOTES_STRICT=false $(BIN)/python -m mkdocs serve --dev-addr 127.0.0.1:8000

build: $(INSTALLED)
	$(BIN)/python -m mkdocs build --strict --site-dir site

# One pytest-xdist worker per core; tests that share an expensive module fixture name an xdist_group.
test: $(INSTALLED)
	$(BIN)/python -m pytest -n auto --dist loadgroup

# Re-record every example's expected output (snippets/**/*.out) after a deliberate change.
update-outputs: $(INSTALLED)
	$(BIN)/python -m fieldnotes.record

# Build and page costs as ratios to baselines measured in the same run (not part of `make test`).
# `make bench BENCH="--runs 5 --lighthouse"` passes options (bench/bench.py --help).
bench: $(INSTALLED)
	$(BIN)/python bench/bench.py $(BENCH)

# Regenerate requirements.lock from pyproject.toml in a scratch environment.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip
	.lock-venv/bin/python -m pip install --quiet .
	.lock-venv/bin/python -m pip freeze --exclude autograd-field-notes > requirements.lock
	rm -rf .lock-venv build

$(INSTALLED): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

clean:
	rm -rf site .cache
