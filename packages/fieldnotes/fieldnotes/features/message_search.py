"""Search entries per message (the plugin's `search_messages` option): an error or warning that an
example prints, typed or pasted into mkdocs-material's search, finds the example that prints it.

A page that answers a message usually names it in a heading, which the theme already indexes as a
section. A message that no heading of the site names (a lesson that shows the error in passing, with
its answer in the paragraph beside it) would only be found in the output's text, where every page that
mentions its words competes. So each such message gets an entry of its own: its title is the message
(its first sentence, the part that stays the same between calls), its location the example that
prints it (`#ex-...`, the block's id), its boost its page's. Messages are read from the recorded
outputs: lines `SomeError: message` or `...: SomeWarning: message`.
"""

from __future__ import annotations

import html
import re

from fieldnotes import integrations
from fieldnotes.examples import Example
from fieldnotes.extension import anchor
from fieldnotes.features import Feature
from fieldnotes.integrations import search_entries

_MESSAGE = re.compile(r"(?:^|: )\w+(?:Error|Warning): (?P<message>.+)$", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.;])\s")
_TAGS = re.compile(r"<[^>]+>")
# A shorter title ("Gradients accumulate") is a topic, not a message's own words.
_MIN_NAMING_TITLE = 20


def printed_messages(output: str) -> list[str]:
    """The messages of the errors and warnings in `output`, first sentence only, in order, once each."""
    return list(dict.fromkeys(_SENTENCE_END.split(m["message"].strip())[0] for m in _MESSAGE.finditer(output)))


def _plain(text: str) -> str:
    return html.unescape(_TAGS.sub("", text)).strip().rstrip(".").lower()


class MessageSearch(Feature):
    order = 80

    def __init__(self, build) -> None:
        self.build = build
        self.root = build.root
        self.printed: dict[str, dict[str, list[str]]] = {}
        """A page's URL -> the id of each of its examples that prints messages -> those messages."""

    def on_pre_build(self, config) -> None:
        search = config.plugins.get(search_entries.SEARCH_PLUGIN)
        if search is not None and search.config.enabled and integrations.tested("mkdocs-material"):
            self.extend(search)

    def on_page_content(self, html: str, page, config, files) -> str:
        parsed = self.build.pages.get(page.file.src_uri)
        if parsed is not None:
            self.on_page(page, parsed)
        return html

    def on_page(self, page, parsed) -> None:
        """Read the messages the page's examples print (`parsed`: the page's fieldnotes.blocks.Page)."""
        examples: dict[str, list[str]] = {}
        for block in parsed.blocks:
            name = anchor(block.snippet)
            times = sum(1 for taken in examples if taken == name or taken.startswith(f"{name}-"))
            messages = printed_messages(Example(self.root, block.snippet).recorded() or "")
            if messages:
                examples[name if times == 0 else f"{name}-{times + 1}"] = messages
        self.printed[page.url] = examples

    def entries(self, entries: list[dict]) -> list[dict]:
        """The entries to add to the theme's `entries`: one per example printing a message that no
        entry's title (a heading, a page's title) names."""
        titles = [t for t in (_plain(entry["title"]) for entry in entries) if len(t) >= _MIN_NAMING_TITLE]
        boosts = {entry["location"]: entry["boost"] for entry in entries if "boost" in entry}

        def named(message: str) -> bool:
            message = _plain(message)
            return any(title in message or message in title for title in titles)

        added = []
        for url, examples in self.printed.items():
            for name, messages in examples.items():
                unnamed = [message for message in messages if not named(message)]
                if unnamed:
                    entry = {"location": f"{url}#{name}", "title": "\n".join(unnamed), "text": ""}
                    if url in boosts:
                        entry["boost"] = boosts[url]
                    added.append(entry)
        return added

    def extend(self, search_plugin) -> None:
        """Make `search_plugin` (mkdocs-material's) write these entries into the index with the rest."""
        index = search_plugin.search_index
        generate = index.generate_search_index

        def generate_with_messages(prev):
            index.entries += self.entries(index.entries)
            return generate(prev)

        index.generate_search_index = generate_with_messages
