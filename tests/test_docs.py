"""Every Python block of every page, as pytest-examples reads the fences: it must be an executed block
that includes exactly one snippet file, titled with that file's name (or untitled: the build titles it
so), and that file must pass ruff.

That running it prints its recorded output is the strict build's to check (it runs every block and
compares its output with drift(): every test of the real site fails when it does not), and a
reader's `python snippets/x.py` is tests/test_snippets.py's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

from fieldnotes import blocks
from fieldnotes.examples import project_examples, snippets_dir
from tests.conftest import ROOT

BLOCKS = [b for b in find_examples(ROOT / "docs") if b.path.suffix == ".md"]
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
    snippet = f"{snippets_dir(ROOT)}/{match['path']}"
    if not (ROOT / snippet).is_file():
        pytest.fail(f"{where(block)}: includes {snippet}, which does not exist", pytrace=False)
    if settings.get("title", snippet) != snippet:  # without one, the build titles it so
        pytest.fail(f'{where(block)}: title="{settings.get("title")}" should name the file: title="{snippet}"', False)
    return snippet


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_block_includes_one_snippet_that_lints(block: CodeExample, eval_example: EvalExample):
    snippet = included_snippet(block)
    code = (ROOT / snippet).read_text(encoding="utf-8")
    eval_example.set_config(ruff_select=["E", "F", "W", "B", "I"], ruff_line_length=110, target_version="py311")
    try:
        eval_example.lint_ruff(CodeExample.create(code, path=Path(snippet), start_line=0))
    except BaseException as failure:  # pytest-examples raises its own Failed type
        pytest.fail(f"{where(block)} includes {snippet}, which ruff rejects:\n{failure}", pytrace=False)


def test_every_snippet_is_shown_on_a_page():
    includes = [INCLUDE.match(b.source.strip()) for b in BLOCKS]
    shown = {f"{snippets_dir(ROOT)}/{match['path']}" for match in includes if match}
    orphans = {e.snippet for e in project_examples(ROOT)} - shown
    assert not orphans, f"snippets no page includes (delete them or show them): {sorted(orphans)}"


def test_pages_have_blocks():
    """Guards the collection itself: if pytest-examples stopped finding blocks, nothing above would run."""
    assert len(BLOCKS) >= 20
    assert {b.path.name for b in BLOCKS} >= {"leaf-vs-intermediate.md", "grad-is-none.md", "retain-grad.md"}
