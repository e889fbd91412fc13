"""Every snippet, run the way a reader runs it (`python snippets/x/y.py`), prints exactly its recorded
output: the page, the recorded file and the reader's terminal agree.

The runs go through the engine's runner (fieldnotes.runner), which runs each snippet as python would in
a process forked from a server that has imported torch (packages/fieldnotes/tests/ check it against
real `python` processes); no snippet does anything before importing torch, so the preload cannot show."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from fieldnotes import runner
from fieldnotes.examples import drift, project_examples
from tests.conftest import READER_RUNS, ROOT, reader_run_kind

EXAMPLES = project_examples(ROOT)
STANDALONE = reader_run_kind("standalone", __file__)  # the cache kind of a run by `python snippets/x.py`


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.snippet for e in EXAMPLES])
def test_snippet_runs_standalone_as_recorded(example):
    # A run that printed the recorded output is remembered until the snippet, a helper or anything
    # installed changes (fieldnotes.cache); a cached output that disagrees is never trusted: it runs again.
    cached = READER_RUNS.load_run(example, STANDALONE)
    if cached is not None and drift(example, cached) is None:
        return
    runner.start_server(("torch",))
    run = runner.run_snippet(ROOT, example.snippet, timeout=300)
    problem = drift(example, run)
    if problem:
        pytest.fail(f"`python {example.snippet}`: {problem}", pytrace=False)
    READER_RUNS.save_run(example, run, STANDALONE)


def before_torch(path: Path) -> str | None:
    """The first statement `path` runs before it imports torch, other than a docstring or an import (a
    helper beside it that it imports first is read the same way); "" once torch is imported; None if
    neither happens."""
    for statement in ast.parse(path.read_text()).body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            return f"{path.name}:{statement.lineno}"
        names = [a.name for a in statement.names] if isinstance(statement, ast.Import) else [statement.module or ""]
        for name in names:
            helper = path.parent / f"{name}.py"
            found = "" if name.split(".")[0] == "torch" else before_torch(helper) if helper.is_file() else None
            if found is not None:
                return found
    return None


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.snippet for e in EXAMPLES])
def test_nothing_runs_before_torch_is_imported(example):
    """Catches a snippet that runs something (sets an environment variable or a warning filter) before it
    imports torch: under `python snippets/x.py` that could change what `import torch` does; in the forked
    runs of the build and of the test above, torch is imported already."""
    problem = before_torch(ROOT / example.snippet)
    assert not problem, f"{problem} runs before torch is imported"


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
