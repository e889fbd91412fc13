"""The API index is searchable: a name typed in the search box finds its entry on /api/, and following
the entry's first example link opens that example's page at the example."""

from __future__ import annotations

from urllib.parse import urlsplit

from test_search import run_search


def test_search_finds_the_api_entry_and_its_example_opens(guarded):
    """Catches the index left out of the search index, or its example links not landing on the block."""
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
    # The page scrolls to the example (instant navigation does it once the new content is in).
    # It must stay there for half a second: on a loaded machine the scroll can still move once after it
    # first lands, and the position that counts is the one the reader is left with.
    target.evaluate(
        "el => new Promise(done => { const t = Date.now(); let since = null; (function poll() {"
        " const top = el.getBoundingClientRect().top;"
        " const there = top >= 0 && top < innerHeight && scrollY > 0;"
        " since = there ? (since ?? Date.now()) : null;"
        " if ((since !== null && Date.now() - since > 500) || Date.now() - t > 20000) done(); else"
        " requestAnimationFrame(poll); })(); })"
    )
    top = target.evaluate("el => el.getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] and page.evaluate("scrollY") > 0
    guard.check()
