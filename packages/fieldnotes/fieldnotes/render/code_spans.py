"""Code blocks without the spans that change nothing a reader sees, on every page (the notebook page's
code cells too).

Pygments wraps every name, operator, punctuation mark, run of whitespace and f-string brace in a span of
its own (`<span class="n">x</span>`). Whitespace shows no colour, and docs/stylesheets/site.css gives a
code block's text the colour of names, so without those spans a block shows its names as before, and
operators, punctuation and braces in that colour: most of the elements of a page of code (a phone
restyles every element a few times as the theme's script starts), and much of its weight.
Pygments also cuts a token that spans lines (a docstring, a comment on the next line) into a span per
line, and gives each of two neighbouring tokens of one kind a span; one span holds them, the line ends
inside it showing no colour either (overrides/javascripts/code-lines.js cuts such a span at its line
ends where it needs lines). The text is untouched, so what the copy button copies is too.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"<code\b.*?</code>", re.DOTALL)
# Names, operators, punctuation, whitespace, f-string braces.
_PLAIN_TOKEN = re.compile(r'<span class="(?:n|o|p|w|si)">([^<]*)</span>')
# A token's span, then (at once, or on the next line) a span of the same token class: one span.
_SAME_TOKEN_NEXT = re.compile(r'(<span class="([^"]+)">[^<]*)</span>(\n?)<span class="\2">')


def _slim(code: str) -> str:
    code = _PLAIN_TOKEN.sub(r"\1", code)
    joined = None
    while joined != code:  # each pass joins a span to the one after it: repeat for a run of them
        joined, code = code, _SAME_TOKEN_NEXT.sub(r"\1\3", code)
    return code


def slim_code_spans(page_html: str) -> str:
    return _CODE.sub(lambda code: _slim(code.group(0)), page_html)
