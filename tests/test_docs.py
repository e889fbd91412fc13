"""Every Python block of every page, collected by pytest-examples: it must be an executed block that
includes exactly one snippet file, that file must pass ruff, and running it must print its recorded
output (the same isolated runner and the same comparison the build uses)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

from fieldnotes import blocks
from fieldnotes.config import project_config
from fieldnotes.examples import SNIPPETS_DIR, Example, drift, project_examples
from fieldnotes.runner import run_snippet
from tests.conftest import ROOT

BLOCKS = [b for b in find_examples(ROOT / "docs") if b.path.suffix == ".md"]
TIMEOUT = project_config(ROOT).timeout  # the build's, from mkdocs.yml
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')


def where(block: CodeExample) -> str:
    return f"{block.path.relative_to(ROOT)}:{block.start_line}"


def included_snippet(block: CodeExample) -> str:
    """The snippet file the block includes, or a readable failure."""
    settings = blocks.options_of(block.prefix)  # the build's grammar (superfences'), not pytest-examples'
    if settings.get("exec") != "on":
        pytest.fail(f'{where(block)}: a python block that is not executed; add exec="on" and include a snippet', False)
    lines = block.source.strip().splitlines()
    match = INCLUDE.match(lines[0]) if len(lines) == 1 else None
    if match is None:
        pytest.fail(f'{where(block)}: the block must hold exactly one line, --8<-- "NAME.py" (no inline code)', False)
    snippet = f"{SNIPPETS_DIR}/{match['path']}"
    if not (ROOT / snippet).is_file():
        pytest.fail(f"{where(block)}: includes {snippet}, which does not exist", pytrace=False)
    if settings.get("title", snippet) != snippet:  # without one, the build titles it so
        pytest.fail(f'{where(block)}: title="{settings.get("title")}" should name the file: title="{snippet}"', False)
    return snippet


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block_lints_and_prints_its_recorded_output(block: CodeExample, eval_example: EvalExample):
    snippet = included_snippet(block)
    code = (ROOT / snippet).read_text(encoding="utf-8")
    eval_example.set_config(ruff_select=["E", "F", "W", "B", "I"], ruff_line_length=110, target_version="py311")
    try:
        eval_example.lint_ruff(CodeExample.create(code, path=Path(snippet), start_line=0))
    except BaseException as failure:  # pytest-examples raises its own Failed type
        pytest.fail(f"{where(block)} includes {snippet}, which ruff rejects:\n{failure}", pytrace=False)
    timeout = float(blocks.options_of(block.prefix).get("timeout", TIMEOUT))  # the fence's own, as in the build
    problem = drift(Example(ROOT, snippet), run_snippet(ROOT, snippet, timeout))
    if problem:
        pytest.fail(f"{where(block)}: {problem}", pytrace=False)


def test_every_snippet_is_shown_on_a_page():
    includes = [INCLUDE.match(b.source.strip()) for b in BLOCKS]
    shown = {f"{SNIPPETS_DIR}/{match['path']}" for match in includes if match}
    orphans = {e.snippet for e in project_examples(ROOT)} - shown
    assert not orphans, f"snippets no page includes (delete them or show them): {sorted(orphans)}"


def test_pages_have_blocks():
    """Guards the collection itself: if pytest-examples stopped finding blocks, nothing above would run."""
    assert len(BLOCKS) >= 20
    assert {b.path.name for b in BLOCKS} >= {"leaf-vs-intermediate.md", "grad-is-none.md", "retain-grad.md"}
