"""fieldnotes/render/output_lines.py: which printed lines may wrap, and that marking them changes no
character. How they look on a screen is tests/browser/test_screen.py's."""

from __future__ import annotations

import html
import re

from fieldnotes.render.output_lines import mark_output_lines
from tests.conftest import ROOT

OUTPUT = '<div class="highlight"><pre><span></span><code>{}</code></pre></div>'
SOURCE = '<div class="highlight"><span class="filename">x.py</span><pre><span></span><code>{}</code></pre></div>'


def wrapping(text: str) -> list[str]:
    """The lines of `text`, as an output block, that come back marked to wrap."""
    marked = mark_output_lines(OUTPUT.format(html.escape(text, quote=False)))
    code = re.search(r"<code>(.*)</code>", marked, re.DOTALL).group(1)
    return [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in code.split("\n") if line.startswith("<w-")]


def test_marking_changes_no_character_of_any_recorded_output():
    """Catches a span that adds, drops or escapes differently a character of what torch printed (the
    page's text, what a reader copies, would differ from the .out file)."""
    for out in sorted((ROOT / "snippets").rglob("*.out")):
        text = out.read_text(encoding="utf-8")
        page = OUTPUT.format(html.escape(text, quote=False))
        marked = mark_output_lines(page)
        code = re.search(r"<code>(.*)</code>", marked, re.DOTALL).group(1)
        assert html.unescape(re.sub(r"<[^>]+>", "", code)) == text, out.name


def test_a_traceback_keeps_its_lines_and_its_message_wraps():
    """Catches a traceback's code or marker line marked to wrap (the ^^^^ would leave the code it marks),
    and an exception's long message, or a frame's `File ...` line (nothing is aligned under it), left
    to scroll."""
    lines = (ROOT / "snippets/faq/int_factory.out").read_text().splitlines()
    assert wrapping("\n".join(lines)) == [lines[1], lines[-1]]
    assert lines[1].startswith('  File "') and lines[3].strip().startswith("^^^")


def test_a_warning_wraps_with_its_source_line():
    """Catches a warning's message (torch's ~550 characters) or the source line under it left to scroll."""
    lines = (ROOT / "snippets/grad_none/seed.out").read_text().splitlines()
    assert wrapping("\n".join(lines)) == lines[1:3]  # the warning and its source line


def test_a_table_keeps_its_lines():
    """Catches aligned columns marked to wrap ("is w:" and "False" on two screen lines, issue 21). Each
    file's first lines are a table; a line after them (freeze.out's last, a sentence) may wrap."""
    for name, rows in (
        ("leaves/ops_make_non_leaves.out", 5),
        ("leaves/freeze.out", 4),
        ("retain_grad/accumulates.out", 3),
    ):
        lines = (ROOT / "snippets" / name).read_text().splitlines()
        assert not set(wrapping("\n".join(lines))) & set(lines[:rows]), name


def test_a_sentence_wraps():
    """Catches a prose line that is not a table (no aligned column) left unmarked: it would scroll."""
    text = (ROOT / "snippets/rules/rules.out").read_text()
    assert len(wrapping(text)) == len(text.splitlines())


def test_source_blocks_are_left_alone():
    page = SOURCE.format("x = 1  # a comment long enough to wrap somewhere on a phone")
    assert mark_output_lines(page) == page
