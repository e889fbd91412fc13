"""Searching what a reader types or pastes lands on the page that explains it.

At desktop width the key `s` opens the search; the first result (the best-ranked page) must be an
expected page, and clicking it must open that page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from browser_site import BUDGET_MS, CONTENT

NON_LEAF_WARNING = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"

# What a reader types or pastes -> the pages that may come first (the page explaining it).
SEARCHES = [
    pytest.param("retain_grad", ("/retain-grad/",), id="retain_grad"),
    pytest.param("is_leaf", ("/leaf-vs-intermediate/",), id="is_leaf"),
    pytest.param("register_hook", ("/register-hook/",), id="register_hook"),
    # The FAQ page on this warning, or the lesson that shows it. (Without the FAQ page the lesson ranks
    # 5th: the theme's search ORs the words and boosts titles and short intros that say .grad/tensor/leaf.)
    pytest.param(NON_LEAF_WARNING, ("/faq/warnings/", "/grad-is-none/"), id="non-leaf-grad-warning"),
]


def run_search(page, query: str) -> list[str]:
    """Open the search with `s`, type the query, return the result links' paths, best first."""
    page.goto("/")
    page.keyboard.press("s")
    search_input = page.locator("input.md-search__input")
    search_input.wait_for(state="visible")
    assert search_input.evaluate("el => el === document.activeElement"), "`s` did not focus the search"
    meta = page.locator(".md-search-result__meta")
    # Wait for the search worker to load the index ("Initializing search" until then).
    page.wait_for_function(
        "el => !/initializ/i.test(el.textContent)", arg=meta.element_handle(), polling=50, timeout=BUDGET_MS
    )
    search_input.fill(query)
    search_input.press("End")  # the theme searches on keyup
    page.wait_for_function("el => /matching document/i.test(el.textContent)", arg=meta.element_handle(), polling=50)
    hrefs = page.locator(".md-search-result__item a").evaluate_all("links => links.map(a => a.href)")
    return [urlsplit(h).path for h in hrefs]


@pytest.mark.parametrize(("query", "expected"), SEARCHES)
def test_search_finds_the_page(guarded, query, expected):
    page, guard = guarded
    results = run_search(page, query)
    ranked = list(dict.fromkeys(results))  # pages, in order of their best result
    assert ranked, f"searching {query!r} found nothing"
    assert ranked[0] in expected, f"searching {query!r}: the pages ranked {ranked}; expected first: {expected}"

    page.locator(".md-search-result__item a").first.click()
    page.wait_for_url(lambda url: urlsplit(url).path == ranked[0])
    page.locator(f"{CONTENT} h1").first.wait_for()
    guard.check()
