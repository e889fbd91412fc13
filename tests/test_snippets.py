"""Every snippet, run the way a reader runs it (`python snippets/x/y.py` in a fresh interpreter), prints
exactly its recorded output: the page, the recorded file and the reader's terminal agree."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from fieldnotes.examples import drift, find_examples
from fieldnotes.runner import Run, normalise_standalone
from tests.conftest import ROOT

EXAMPLES = find_examples(ROOT)


def run_standalone(snippet: str) -> Run:
    # -u: stdout unbuffered, so prints and warnings interleave as they would in a terminal.
    done = subprocess.run(
        [sys.executable, "-u", snippet], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True, timeout=300,
    )
    return Run(normalise_standalone(done.stdout, ROOT, snippet), done.returncode)


@pytest.fixture(scope="module")
def standalone_runs() -> dict[str, Run]:
    # Each run pays for importing torch; two at a time keeps both cores busy.
    with ThreadPoolExecutor(max_workers=2) as pool:
        snippets = [e.snippet for e in EXAMPLES]
        return dict(zip(snippets, pool.map(run_standalone, snippets), strict=True))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.snippet for e in EXAMPLES])
def test_snippet_runs_standalone_as_recorded(example, standalone_runs):
    problem = drift(example, standalone_runs[example.snippet])
    if problem:
        pytest.fail(f"`python {example.snippet}`: {problem}", pytrace=False)


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
