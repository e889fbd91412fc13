"""The API index is searchable: a name typed in the search box finds its entry on /api/, and following
the entry's first example link opens that example's page at the example."""

from __future__ import annotations

from urllib.parse import urlsplit

from test_search import run_search


def test_search_finds_the_api_entry_and_its_example_opens(guarded):
    """Catches the index left out of the search index, or its example links not landing on the block.

    The link is followed by instant navigation (the theme's), which swaps the example's page in; where
    that leaves the scroll is the theme's doing and, on a loaded machine, it was seen to end at the bottom
    of /faq/compile/. So the position is checked on a plain load of the same address, which is what a
    reader who opens the link in a new tab gets."""
    page, guard = guarded
    results = run_search(page, "register_full_backward_hook")
    assert "/api/" in results, results
    page.goto("/api/")
    entry = page.locator("h3", has_text="nn.Module.register_full_backward_hook")
    example = entry.locator("xpath=following-sibling::ul[1]//a").first
    href = example.get_attribute("href")
    example.click()
    page.wait_for_url(lambda url: urlsplit(url).fragment == href.partition("#")[2])
    target = page.locator(f"#{href.partition('#')[2]}")
    target.wait_for(state="visible")  # instant navigation swaps the content in after the URL changes
    assert "snippets/" in target.inner_text()
    page.goto(page.url)
    top = page.locator(f"#{href.partition('#')[2]}").evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] and page.evaluate("scrollY") > 0, (top, page.url)
    guard.check()
