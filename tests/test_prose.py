"""General sentences are backed. A paragraph that says always, never, only, every, exactly or nothing (outside
code) states a rule, and a rule drawn from one example can be false. So the paragraph must point to what
backs it: a claim the build checks against a recorded output (`text`{ data-out="x.py" }), the rule that
checks it on random programs (a link to rules.md), or an executed example or a test named in a comment,
`<!-- backed by snippets/x/y.py -->` (an example shown on the same page) or `<!-- backed by tests/z.py -->`.

docs/rules.md is the exception: its general sentences are the rules, and the code on that page checks them.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

GENERAL = re.compile(r"\b(always|never|only|every|exactly|nothing)\b", re.IGNORECASE)
POINTS_TO_A_RULE = re.compile(r"\]\((\.\./)?rules\.md")
BACKED_BY = re.compile(r"<!-- backed by (\S+) -->")
PAGES = [p for p in sorted((ROOT / "docs").rglob("*.md")) if p.name != "rules.md"]


def paragraphs(markdown: str) -> list[str]:
    """The page's prose: front matter, fenced blocks, headings and tables left out."""
    markdown = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.DOTALL)
    markdown = re.sub(r"^```.*?^```", "", markdown, flags=re.DOTALL | re.MULTILINE)
    return [p for p in re.split(r"\n\s*\n", markdown) if p.strip() and not p.lstrip().startswith(("#", "|"))]


def unbacked(page) -> list[str]:
    markdown = page.read_text(encoding="utf-8")
    shown = {f"snippets/{path}" for path in re.findall(r'^--8<-- "([^"]+)"$', markdown, re.MULTILINE)}
    problems = []
    for paragraph in paragraphs(markdown):
        words = GENERAL.findall(re.sub(r"`[^`]*`", "", paragraph))  # quoted code and messages say nothing
        if not words or "data-out=" in paragraph or POINTS_TO_A_RULE.search(paragraph):
            continue
        backers = BACKED_BY.findall(paragraph)
        good = [b for b in backers if b in shown or (b.startswith("tests/") and (ROOT / b).is_file())]
        if not good:
            problems.append(f"{words} in: {' '.join(paragraph.split())[:160]}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT / "docs").as_posix())
def test_every_general_sentence_points_to_what_backs_it(page):
    """Catches a new sentence that generalises with nothing behind it, and a backing comment naming an
    example the page does not show or a test that does not exist."""
    problems = unbacked(page)
    assert not problems, "general sentences with nothing backing them:\n" + "\n".join(problems)


def test_the_check_sees_an_unbacked_sentence(tmp_path):
    """The check itself can fail: the same sentence, unbacked, backed by a missing example, then backed."""
    page = tmp_path / "page.md"
    sentence = "A hook always runs before the gradient is stored."
    page.write_text(f"# Page\n\n{sentence}\n")
    assert unbacked(page)
    page.write_text(f"# Page\n\n{sentence} <!-- backed by snippets/hooks/order.py -->\n")
    assert unbacked(page), "an example the page does not show backs nothing"
    page.write_text(
        '# Page\n\n```python exec="on" source="above" result="text" title="snippets/hooks/order.py"\n'
        '--8<-- "hooks/order.py"\n```\n\n'
        f"{sentence} <!-- backed by snippets/hooks/order.py -->\n"
    )
    assert not unbacked(page)
    page.write_text(f"# Page\n\n{sentence} See [rule 7](rules.md#the-rules-in-words).\n")
    assert not unbacked(page)
