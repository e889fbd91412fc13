"""What an example printed, marked line by line: which lines may wrap on a narrow column, which never.

A block of output is `white-space: pre` (docs/stylesheets/site.css): a line never wraps unless marked
here, so a line this module does not understand scrolls rather than breaks. Marked to wrap, in
`<w->` (with `--indent:N`, its leading spaces, where it has any, in `<i->`; elements of no
meaning of their own, named short because the notebook page is at its 100 KB budget), are the lines whose
columns carry nothing: a warning's or an exception's message, a sentence, a line of values. Left
unmarked, so never re-wrapped:

- a traceback: its header and every indented line under it (the code lines and their `^^^^`/`~~~~`
  markers), up to the exception's own line, which is a message; a `File ...` frame line has nothing
  aligned under it, and wraps like a message;
- a table: two adjacent lines at the same indentation where a word that follows a run of two or more
  spaces in one starts at the column of a word of the other (aligned columns), and a multi-line
  tensor's rows (a row's `[` under a `[` of the line above);
- a line short enough to fit any phone's column (FITS characters), which needs no span.

A version note's diff is classified on the lines' text after their one-character `-`/`+`/` ` prefix.
Only the markup changes: each line's characters, and so what is copied or recorded, are as printed.
"""

from __future__ import annotations

import html
import re

FITS = 34  # characters an output's column holds on a 320 px screen: shorter lines never wrap
TRACEBACK = (
    "Traceback (most recent call last):",
    "During handling of the above exception",
    "The above exception was the direct cause",
)
WARNING = re.compile(r"^\S.*?:\d+: \w*Warning: ")  # warnings.formatwarning: "path:line: Category: text"
_GAP = re.compile(r" +(?=\S)")

# An output: the executed blocks' (no file name above), the notebook's text outputs, and a bare
# <pre><code> (a version note's diff, a notebook's folded answer). Source blocks have a file name or
# `nb-input`, and Pygments' spans: a body with any tag is left as it is.
_OUTPUT = re.compile(
    r'(<div class="(?:language-text nb-output )?highlight"><pre><span></span><code>|<pre><code>)'
    r"([^<]*)(?=</code></pre>)"
)


def _starts(line: str) -> tuple[set[int], set[int]]:
    """The columns where a word starts after its line's indentation: all of them, and those after 2+ spaces."""
    words, padded = set(), set()
    for gap in _GAP.finditer(line):
        if gap.start() == 0:
            continue
        words.add(gap.end())
        if len(gap.group()) >= 2:
            padded.add(gap.end())
    return words, padded


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def fixed_lines(lines: list[str]) -> set[int]:
    """The indexes of the lines that must never wrap: tracebacks and tables (see the module's docstring)."""
    fixed: set[int] = set()
    free: set[int] = set()  # a traceback's lines, a message: never part of a table
    in_traceback = after_warning = False
    for i, line in enumerate(lines):
        if line.startswith(TRACEBACK):
            in_traceback, after_warning = True, False
            fixed.add(i)
            free.add(i)
        elif in_traceback and line.startswith('  File "'):
            free.add(i)  # nothing is aligned under a frame's line: it may wrap like a message
        elif in_traceback and line.startswith(" "):
            fixed.add(i)
            free.add(i)
        elif WARNING.match(line):
            in_traceback, after_warning = False, True
            free.add(i)
        elif after_warning and line.startswith(" "):
            free.add(i)  # the source line a warning shows: nothing is aligned under it
        else:
            if in_traceback:
                free.add(i)  # the exception's line
            in_traceback = after_warning = False
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if {i, i + 1} & free or not a.strip() or not b.strip():
            continue
        (words_a, padded_a), (words_b, padded_b) = _starts(a), _starts(b)
        aligned = _indent(a) == _indent(b) and (padded_a & words_b or padded_b & words_a)
        row = _indent(b) and b[_indent(b)] == "[" and a[_indent(b) : _indent(b) + 1] == "["
        if aligned or row:
            fixed |= {i, i + 1}
    return fixed


def _mark(body: str) -> str:
    escaped = body.split("\n")
    lines = [html.unescape(line) for line in escaped]
    diff = len(lines) > 1 and lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    content = [line[1:] if diff and line[:1] in " +-" and i > 1 else line for i, line in enumerate(lines)]
    fixed = fixed_lines(content)
    out = []
    for i, (line, text) in enumerate(zip(escaped, lines, strict=True)):
        if i in fixed or len(text) <= FITS:
            out.append(line)
            continue
        indent = _indent(text)
        if diff and i > 1:
            indent = 1 + _indent(text[1:])
        if indent:
            out.append(f'<w- style="--indent:{indent}"><i->{line[:indent]}</i->{line[indent:]}</w->')
        else:
            out.append(f"<w->{line}</w->")
    return "\n".join(out)


def mark_output_lines(page_html: str) -> str:
    return _OUTPUT.sub(lambda m: m.group(1) + _mark(m.group(2)), page_html)
