"""The real site's strict build: it passes, has its pages, and shows what torch printed."""

from __future__ import annotations

import html
import re

import pytest

from fieldnotes.examples import Example, torch_version
from fieldnotes.render.code_spans import slim_code_spans
from fieldnotes.render.indentation import strip_indentation
from tests.conftest import ROOT

LESSONS = [
    "index.html",
    "leaf-vs-intermediate/index.html",
    "grad-is-none/index.html",
    "retain-grad/index.html",
    "register-hook/index.html",
    "inside-the-graph/index.html",
    "cheat-sheet/index.html",
]
NON_LEAF_WARNING = "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."


def result_blocks(page_html: str) -> list[str]:
    """The text of every executed block's output on a page, as the reader sees it."""
    # Source blocks start with their file name; result blocks go straight to the code.
    blocks = re.findall(r'<div class="highlight"><pre><span></span><code>(.*?)</code></pre>', page_html, re.DOTALL)
    return [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks]


@pytest.mark.parametrize("page", LESSONS)
def test_page_is_built_and_names_the_torch_that_printed_it(built_site, page):
    text = (built_site / page).read_text()
    assert f"printed at build time by torch {torch_version()} and Python 3.11" in text


@pytest.mark.parametrize(
    ("page", "snippet"),
    [
        ("leaf-vs-intermediate", "grad_none/seed.py"),
        ("retain-grad", "retain_grad/seed.py"),
        ("register-hook", "hooks/seed.py"),
    ],
)
def test_seed_examples_show_exactly_what_torch_printed(built_site, page, snippet):
    recorded = Example(ROOT, f"snippets/{snippet}").recorded()
    assert recorded.strip() in [b.strip() for b in result_blocks((built_site / page / "index.html").read_text())]


@pytest.mark.parametrize(
    "page", sorted(p.relative_to(ROOT / "docs").with_suffix("").as_posix() for p in (ROOT / "docs").rglob("*.md"))
)
def test_no_fence_is_left_unrendered(built_site, page):
    """A fence the highlighter refuses (an unknown option, say) turns into raw text, and strict misses it."""
    folder = built_site / page.removesuffix("index")  # index.md is its folder's page
    assert "```" not in html.unescape((folder / "index.html").read_text())


def test_non_leaf_grad_warning_is_visible(built_site):
    blocks = result_blocks((built_site / "grad-is-none" / "index.html").read_text())
    assert any(NON_LEAF_WARNING in b for b in blocks)


def test_claims_are_marked_on_the_pages(built_site):
    """The prose's quoted outputs are checked by the build; make sure the pages still use the mechanism."""
    claims = sum((built_site / p).read_text().count("data-out=") for p in LESSONS)
    assert claims >= 30


def test_every_page_weighs_at_most_100_kb(built_site):
    """The performance target for every page, the notebook page included (mkdocs-jupyter alone would
    inline about 570 KB of CSS into it)."""
    sizes = {p.relative_to(built_site).as_posix(): p.stat().st_size for p in built_site.rglob("*.html")}
    assert not {page: size for page, size in sizes.items() if size > 100_000}


def test_stripping_indentation_keeps_every_verbatim_block_and_a_break_for_all_whitespace():
    page = "<div>\n    <pre>a\n    b</pre>\n\n   <p>x\n  y</p><code>q\n  r</code><script>\n  f();</script>\n  </div>"
    stripped = "<div>\n<pre>a\n    b</pre>\n<p>x\ny</p><code>q\n  r</code><script>\n  f();</script>\n</div>"
    assert strip_indentation(page) == stripped


def test_code_loses_only_the_spans_that_show_no_colour_of_their_own_and_keeps_its_text():
    """Catches dropping a coloured token's span (a keyword, a string, a number) or any text, and touching
    a span outside code (prose may use the same class names). Names, operators, punctuation, whitespace
    and f-string braces show in the code's own colour (site.css), so their spans go."""
    page = (
        '<p><span class="n">prose</span></p><pre><code><span class="kn">import</span><span class="w"> </span>'
        '<span class="nn">torch</span>\n<span class="n">x</span> <span class="o">=</span> <span class="n">a</span>'
        '<span class="o">.</span><span class="n">grad</span><span class="p">(</span><span class="mi">1</span>'
        '<span class="p">)</span> <span class="sa">f</span><span class="s2">&quot;n</span><span class="si">{</span>'
        '<span class="n">x</span><span class="si">}</span><span class="s2">&quot;</span></code></pre>'
    )
    slimmed = (
        '<p><span class="n">prose</span></p><pre><code><span class="kn">import</span> '
        '<span class="nn">torch</span>\nx = a.grad(<span class="mi">1</span>) '
        '<span class="sa">f</span><span class="s2">&quot;n</span>{x}<span class="s2">&quot;</span></code></pre>'
    )
    assert slim_code_spans(page) == slimmed


def test_neighbouring_spans_of_one_token_kind_become_one():
    """Catches two neighbouring tokens of one kind (two runs of one string) each keeping a span of its
    own, and joining tokens of different kinds."""
    page = '<pre><code><span class="s2">"a</span><span class="s2">b"</span><span class="mi">1</span></code></pre>'
    slimmed = '<pre><code><span class="s2">"ab"</span><span class="mi">1</span></code></pre>'
    assert slim_code_spans(page) == slimmed


def test_a_token_cut_at_line_ends_becomes_one_span_and_keeps_its_text():
    """A docstring's lines are one span, and so are a run of comment lines; catches joining spans of
    different tokens (a comment, then a keyword) or across more than a line end, and dropping text."""
    page = (
        '<pre><code><span class="sd">&quot;&quot;&quot;One,</span>\n<span class="sd">two,</span>\n'
        '<span class="sd">three.&quot;&quot;&quot;</span>\n<span class="c1"># a</span>\n'
        '<span class="k">if</span> <span class="k">not</span>\n    <span class="c1"># b</span>\n'
        '    <span class="c1"># c</span></code></pre>'
    )
    slimmed = (
        '<pre><code><span class="sd">&quot;&quot;&quot;One,\ntwo,\nthree.&quot;&quot;&quot;</span>\n'
        '<span class="c1"># a</span>\n<span class="k">if</span> <span class="k">not</span>\n'
        '    <span class="c1"># b</span>\n    <span class="c1"># c</span></code></pre>'
    )
    assert slim_code_spans(page) == slimmed


def test_no_page_keeps_a_span_that_shows_no_colour_of_its_own_in_its_code(built_site):
    """Catches the build no longer dropping them (the pages' weight and element count, bench/bench.py), on
    any page: the notebook page's code cells, slimmed by the same code, too."""
    plain = re.compile(r'<span class="(?:n|o|p|w|si)">')
    kept = {p.relative_to(built_site).as_posix(): len(plain.findall(p.read_text())) for p in built_site.rglob("*.html")}
    assert not {page: count for page, count in kept.items() if count}
