"""Every snippet, run the way a reader runs it (`python snippets/x/y.py` in a fresh interpreter), prints
exactly its recorded output: the page, the recorded file and the reader's terminal agree.

The runs go through tests/fresh_python.py, which forks a fresh-looking interpreter per snippet from one
that has imported torch (tests/test_fresh_python.py checks it against real ones), and leaves a snippet
that could tell the difference to a real fresh interpreter."""

from __future__ import annotations

import os
import re

import pytest

from fieldnotes import cache
from fieldnotes.examples import drift, project_examples
from fieldnotes.runner import Run, only_own_frames
from tests.conftest import REUSE_RUNS, ROOT, reader_run_kind
from tests.fresh_python import SCRIPTS

EXAMPLES = project_examples(ROOT)
STANDALONE = reader_run_kind("standalone", __file__)  # the cache kind of a run by `python snippets/x.py`


def normalise_standalone(output: str, snippet: str) -> str:
    """Make the output of a real `python snippet` comparable with the build's runner's.

    The interpreter shows the script's absolute path in warnings and tracebacks; show it relative
    to the project root, as a reader running from the checkout sees it, and keep only its frames.
    """
    return only_own_frames(output.replace(f"{ROOT}{os.sep}", ""), snippet)


def run_standalone(snippet: str) -> Run:
    # -u: stdout unbuffered, so prints and warnings interleave as they would in a terminal.
    done = SCRIPTS.run(snippet, ROOT, timeout=300)
    return Run(normalise_standalone(done.text, snippet), done.returncode)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.snippet for e in EXAMPLES])
def test_snippet_runs_standalone_as_recorded(example):
    # A run that printed the recorded output is remembered until the snippet, a helper or anything
    # installed changes (fieldnotes.cache); a cached output that disagrees is never trusted: it runs again.
    cached = cache.load(example, STANDALONE) if REUSE_RUNS else None
    if cached is not None and drift(example, cached) is None:
        return
    run = run_standalone(example.snippet)
    problem = drift(example, run)
    if problem:
        pytest.fail(f"`python {example.snippet}`: {problem}", pytrace=False)
    cache.store(example, run, STANDALONE)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.snippet for e in EXAMPLES])
def test_recorded_output_is_deterministic_text(example):
    """No memory addresses or timestamps: two builds must print byte-identical outputs."""
    recorded = example.recorded() or ""
    assert not re.search(r"0x[0-9a-f]{6,}", recorded), f"{example.recorded_path} shows a memory address"
    assert not re.search(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d", recorded), f"{example.recorded_path} shows a timestamp"
    assert "/work/" not in recorded and "site-packages" not in recorded, f"{example.recorded_path} shows a local path"


def test_every_recorded_output_belongs_to_a_snippet():
    outs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "snippets").rglob("*.out")}
    assert outs == {e.recorded_path for e in EXAMPLES}
