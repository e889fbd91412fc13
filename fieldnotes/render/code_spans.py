"""Code blocks without the spans that change nothing a reader sees.

Pygments wraps every name and every run of whitespace in a span of its own (`<span class="n">x</span>`).
Whitespace shows no colour, and docs/stylesheets/site.css gives a code block's text the colour of
names, so without those spans a page renders the same: many of the elements of a page of code (a
phone restyles every element a few times as the theme's script starts), and much of its weight.
Pygments also cuts a token that spans lines (a docstring, a comment on the next line) into a span per
line; one span holds them all, the line ends inside it, which show no colour either
(overrides/javascripts/code-lines.js cuts such a span at its line ends where it needs lines).
The text is untouched, so what the copy button copies is too.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"<code\b.*?</code>", re.DOTALL)
_PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')
# A token's span, then the next line's span of the same token class: one span.
_SAME_TOKEN_NEXT_LINE = re.compile(r'(<span class="([^"]+)">[^<]*)</span>\n<span class="\2">')


def _slim(code: str) -> str:
    code = _PLAIN_TOKEN.sub(r"\1", code)
    joined = None
    while joined != code:  # each pass joins a line to the one after it: repeat for a run of lines
        joined, code = code, _SAME_TOKEN_NEXT_LINE.sub(r"\1\n", code)
    return code


def slim_code_spans(page_html: str) -> str:
    return _CODE.sub(lambda code: _slim(code.group(0)), page_html)
