"""Pages without the templates' indentation."""

from __future__ import annotations

import re

# Where whitespace is content (<pre>, <code>, <textarea>) or code (<script>, <style>): kept as it is.
_VERBATIM = re.compile(r"<(pre|code|textarea|script|style)\b.*?</\1>", re.DOTALL)
_INDENTATION = re.compile(r"\n\s+")  # a line break, then indentation and blank lines


def strip_indentation(page_html: str) -> str:
    """The page without the templates' indentation and blank lines: one line break
    stays wherever there was whitespace, so nothing renders differently."""
    parts, position = [], 0
    for verbatim in _VERBATIM.finditer(page_html):
        parts += [_INDENTATION.sub("\n", page_html[position : verbatim.start()]), verbatim.group(0)]
        position = verbatim.end()
    parts.append(_INDENTATION.sub("\n", page_html[position:]))
    return "".join(parts)
