"""The theme's search entries of a page, reused while the page is the same.

mkdocs-material's search plugin reads every page's HTML with the standard library's tokenizer to cut it
into the entries of the search index. Our pages carry their outputs and diagrams, several times the
HTML of the same pages without them, so that reading was the largest cost a warm build had over the
plain render. In mkdocs-material 9.8, what the theme makes of a page depends
only on the page's HTML, its address, title, front matter and table of contents, so the entries are
kept in the project's cache under those (and the installed theme's version, through the cache's
environment fingerprint), and a rebuild reads again only the pages that changed. The theme's own code
still makes every entry.
"""

from __future__ import annotations

import json

from fieldnotes import cache
from fieldnotes.cache import Store

SEARCH_PLUGIN = "material/search"
_CODE = cache.code_digest(__file__)


def reuse_entries(search_plugin, store: Store) -> None:
    """Make `search_plugin`'s index of this build take each page's entries from the build's store."""
    index = search_plugin.search_index

    def add_entry_from_context(page) -> None:
        def compute() -> dict:
            scratch = type(index)(**index.config)  # the theme's own index, for this page alone
            scratch.add_entry_from_context(page)
            return {"entries": scratch.entries}

        key = json.dumps([page.content, page.url, page.title, page.meta, _toc(page.toc)], default=str)
        index.entries += store.memo(f"search entries {_CODE}", key.encode(), compute)["entries"]

    index.add_entry_from_context = add_entry_from_context


def _toc(items) -> list:
    """What the theme reads of a table of contents: each heading's id and address, nested."""
    return [[item.id, item.url, _toc(item.children)] for item in items]
