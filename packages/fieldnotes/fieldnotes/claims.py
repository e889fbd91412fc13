"""The claims a page makes about outputs: `text`{ data-out="leaves/x.py" } in a page says that
snippets/leaves/x.py's recorded output contains `text`. Checked on the page's HTML, after Markdown
(`fieldnotes.extension` runs it as a postprocessor), so any Markdown host checks them."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fieldnotes.examples import Example, snippets_dir

_CLAIM = re.compile(r'<code data-out="(?P<snippet>[^"]+)">(?P<text>.*?)</code>', re.DOTALL)


def false_claims(html_text: str, root: Path, page_path: str, source: str) -> list[str]:
    """What is wrong with each claim of the page's HTML, named by `page_path` and its line in `source`
    (the page's source, front matter included)."""
    problems = []
    for claim in _CLAIM.finditer(html_text):
        example = Example(root, f"{snippets_dir(root)}/{claim['snippet']}")
        text = html.unescape(claim["text"])
        recorded = example.recorded()
        if recorded is None or text not in recorded:
            problems.append(
                f"{page_path}:{claim_line(source, claim['snippet'], text)}: the page claims "
                f"{example.snippet} prints `{text}`, but its recorded output {example.recorded_path} does not "
                "contain it. Edit the sentence to what the example prints, or re-check the example."
            )
    return problems


def claim_line(source: str, snippet: str, text: str) -> int:
    """The claim's line in the page's source (front matter counted): the line naming its snippet and its
    text, else the first naming its snippet."""
    named = f'data-out="{snippet}"'
    lines = [(n, line) for n, line in enumerate(source.splitlines(), start=1) if named in line]
    return next((n for n, line in lines if f"`{text}`" in line), lines[0][0] if lines else 0)
