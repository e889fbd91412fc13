"""Which executed blocks fieldnotes checks, with markdown-exec's own reading of their options as the
oracle (fieldnotes/forms.py)."""

from __future__ import annotations

import markdown
import pytest
from markdown_exec import validator
from markdown_exec._internal.formatters.pycon import _transform_source

from fieldnotes.forms import Unchecked, code_to_run, unchecked_because


def validated(language: str, **inputs: str) -> dict | None:
    """The options markdown-exec's validator leaves for a fence, or None if it does not execute it."""
    options: dict = {}
    return options if validator(language, dict(inputs), options, {}, markdown.Markdown()) else None


@pytest.mark.parametrize("spelling", ["on", "1", "true", "yes", "True", "ON"])
@pytest.mark.parametrize("result", ["text", "python", "console", "pycon", "json"])
def test_every_exec_spelling_and_result_language_is_checked(spelling, result):
    """Catches a spelling of exec= or a result= language markdown-exec accepts and fieldnotes does not check."""
    assert unchecked_because("python", validated("python", exec=spelling, result=result)) is None


def test_a_console_source_is_checked_without_result():
    """Catches source="console" (the output printed after the code, in one block) left unchecked."""
    assert unchecked_because("py", validated("py", exec="1", source="console")) is None


@pytest.mark.parametrize(
    ("language", "inputs", "kind"),
    [
        ("python", {"exec": "1", "html": "1", "result": "text"}, "blocks whose output is HTML (html=)"),
        ("python", {"exec": "1"}, "blocks whose output is Markdown (no result=)"),
        ("bash", {"exec": "1", "result": "text"}, "bash blocks"),
    ],
)
def test_what_fieldnotes_leaves_to_markdown_exec_is_named(language, inputs, kind):
    """Catches an HTML or Markdown output compared as text, and another language run as Python."""
    assert unchecked_because(language, validated(language, **inputs)) == kind


def test_a_pycon_block_runs_what_markdown_exec_runs():
    """Catches a pycon block run with its prompts or its shown results."""
    code = ">>> x = 1\n>>> for i in range(2):\n...     print(x + i)\n1\n2\n>>> print('end')"
    assert code_to_run("pycon", code) == _transform_source(code)[0]
    assert code_to_run("python", code) == code


def test_the_unchecked_blocks_are_said_once_with_where_they_are():
    """Catches a build that leaves blocks unchecked silently, or names none of them."""
    unchecked = Unchecked()
    assert unchecked.note() is None
    for line in (3, 9, 12, 20):
        unchecked.add("bash blocks", f"docs/a.md:{line}")
    unchecked.add("blocks whose output is HTML (html=)", "docs/b.md:4")
    assert unchecked.note() == (
        "fieldnotes left 5 executed blocks to markdown-exec, unchecked: bash blocks: 4 (docs/a.md:3, docs/a.md:9, "
        "docs/a.md:12, ...); blocks whose output is HTML (html=): 1 (docs/b.md:4)."
    )
