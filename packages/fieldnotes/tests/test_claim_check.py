"""The claim check (fieldnotes/claims.py, which the Markdown extension runs on each page): a page's
`text`{ data-out="x.py" } is compared with x.py's recorded output, in-process on the HTML the page renders
to. Each expected warning is written out here (issue 33)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fieldnotes.claims import false_claims
from fieldnotes.features.page_blocks import PageBlocks

PAGE_SOURCE = """---
title: Leaves
---
# Leaves

It prints `False None`{ data-out="leaves/seed.py" }.

Then `True`{ data-out="leaves/seed.py" } and `tensor(1.)`{ data-out="leaves/other.py" }.
"""


@pytest.fixture
def check(tmp_path):
    """The check of one page's HTML, `docs/leaves.md` whose source is `source`: its problems, in order."""
    (tmp_path / "snippets" / "leaves").mkdir(parents=True)
    (tmp_path / "snippets" / "leaves" / "seed.out").write_text("False None\n<AddBackward0>\nline one\nline two\n")
    return lambda html, source=PAGE_SOURCE: false_claims(html, tmp_path, "docs/leaves.md", source)


def claim(snippet: str, text: str) -> str:
    return f'<p>It prints <code data-out="{snippet}">{text}</code>.</p>'


def test_a_claim_the_record_backs_passes(check):
    """Catches a true claim (escaped as HTML, or across lines) reported as false."""
    html = claim("leaves/seed.py", "False None") + claim("leaves/seed.py", "&lt;AddBackward0&gt;")
    html += claim("leaves/seed.py", "one\nline")
    assert check(html) == []


def test_a_false_claim_names_its_page_line_and_what_to_do(check):
    """Catches a false claim passed, or reported without its page, its line, the snippet or the advice."""
    assert check(claim("leaves/seed.py", "True")) == [
        "docs/leaves.md:8: the page claims snippets/leaves/seed.py prints `True`, but its recorded "
        "output snippets/leaves/seed.out does not contain it. Edit the sentence to what the example prints, "
        "or re-check the example."
    ]


def test_every_claim_is_checked_and_a_missing_record_backs_none(check):
    """Catches a check that stops at the first claim, or takes a missing `.out` for a match."""
    html = claim("leaves/seed.py", "False None") + claim("leaves/seed.py", "True")
    html += claim("leaves/other.py", "tensor(1.)")
    found = check(html)
    assert [w.split(": the page claims ")[0] for w in found] == ["docs/leaves.md:8"] * 2
    assert "snippets/leaves/other.py prints `tensor(1.)`, but its recorded output snippets/leaves/other.out" in found[1]


def test_a_claim_line_falls_back_to_the_first_naming_its_snippet(check):
    """Catches a line number that loses the front matter, or is not the first line naming the snippet
    when no line holds the claimed text (inline code that markdown rewrote), or is not 0 without one."""
    found = check(claim("leaves/seed.py", "gone")) + check(claim("leaves/seed.py", "gone"), "# Other page\n")
    assert [w.split(": the page claims ")[0] for w in found] == ["docs/leaves.md:6", "docs/leaves.md:0"]


def page(anchors: set | None):
    return SimpleNamespace(present_anchor_ids=anchors)


def test_the_ids_given_to_titles_are_the_anchors_mkdocs_checks():
    """Catches links to a block's id reported as broken, the same snippet's second block included."""
    anchors = {"top"}
    ids = [("ex-leaves-seed", 1), ("ex-leaves-seed", 2), ("ex-other", 1)]
    blocks = PageBlocks(SimpleNamespace(page_ids={"docs/leaves.md": ids}, page_path="docs/leaves.md"))
    blocks.on_page_content("<p></p>", page(anchors=anchors))
    assert anchors == {"top", "ex-leaves-seed", "ex-leaves-seed-2", "ex-other"}
    blocks.on_page_content("<p></p>", page(anchors=None))  # MkDocs before 1.6 keeps none: nothing to add to
