"""The plugin's features: each one a `Feature`, answering the MkDocs events it needs.

A distribution registers its features under the entry-point group `fieldnotes.features`: a callable
given the build (`fieldnotes.build_state.Build`, whose `config` holds the plugin's options) and MkDocs'
config, that returns the features this build gets. This package registers its own
(`fieldnotes.features.core`) and its torch features (`fieldnotes.torch.features`) there, like any
other. The plugin (`fieldnotes.plugin`) calls every event of every feature, in `order`.
"""

from __future__ import annotations

from importlib.metadata import entry_points

GROUP = "fieldnotes.features"


class Feature:
    """One capability of the build. Each event does nothing here; a feature overrides those it needs."""

    order: int = 50
    """Where it runs among the features at each event: lower first (the plugin's docstring lists them)."""

    def on_config(self, config) -> None:
        pass

    def on_pre_build(self, config) -> None:
        pass

    def on_files(self, files, config) -> None:
        pass

    def on_nav(self, nav, config, files) -> None:
        pass

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        return markdown

    def on_page_content(self, html: str, page, config, files) -> str:
        return html

    def on_post_page(self, output: str, page, config) -> str:
        return output

    def on_post_build(self, config) -> None:
        pass

    def close(self) -> None:
        """Stop background work: at the end of the build, or when it fails."""


def load(build, config) -> list[Feature]:
    """The features every installed distribution gives this build, in their order."""
    found: list[Feature] = []
    for entry in sorted(entry_points(group=GROUP), key=lambda entry: entry.name):
        found.extend(entry.load()(build, config))
    return sorted(found, key=lambda feature: feature.order)
