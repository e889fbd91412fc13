"""Code blocks without the spans that change nothing a reader sees.

Pygments wraps every name and every run of whitespace in a span of its own (`<span class="n">x</span>`).
Whitespace shows no colour, and docs/stylesheets/site.css gives a code block's text the colour of
names, so without those spans a page renders the same: many of the elements of a page of code (a
phone restyles every element a few times as the theme's script starts), and much of its weight.
The text is untouched, so what the copy button copies is too.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"<code\b.*?</code>", re.DOTALL)
_PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>')


def drop_plain_token_spans(page_html: str) -> str:
    return _CODE.sub(lambda code: _PLAIN_TOKEN.sub(r"\1", code.group(0)), page_html)
