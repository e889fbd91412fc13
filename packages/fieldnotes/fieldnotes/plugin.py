"""The MkDocs plugin `fieldnotes`: it executes every example and refuses to show one that drifted.

A thin adapter: the Markdown extension (`fieldnotes.extension`) runs, checks and renders the blocks;
the plugin makes each build's state (`Build`) and hands every MkDocs event to the features installed
(`fieldnotes.features`), in their `order`:

- 0 `PageFiles`: every page parsed once, and the project's examples, for all the others;
- 10 `GraphFence` (torch): the ```autograd-graph fence; its diagrams' runs are submitted first;
- 20 `NotebookPages`, 30 `NotebookRuns`: mkdocs-jupyter's pages, their downloads, their execution;
- 40 `PageBlocks`: the extension given this build; every block's run started in page order;
- 45 `LinkCheck`, 50 `ApiIndexPage` (torch), 60 `Downloads`, 65 `VersionsPage` (torch), 70 `Colab`,
  80 `MessageSearch`; 100 `HtmlRewrites`: the rewrites of the written HTML a site turns on (`html`).

Each feature's options are a group of the plugin's config (`fieldnotes.config`). Every problem is logged
as a warning, which fails the strict build. The events, in the order MkDocs calls them (ARCHITECTURE.md
says what the features do at each):

- on_startup: notes `--dirty` (with this event, MkDocs keeps the plugin for a whole `mkdocs serve`).
- on_config: makes this build's state and asks every installed distribution for its features.
- on_pre_build
- on_files (priority 50: before mkdocs-jupyter wraps the notebooks)
- on_nav
- on_page_markdown: also notes the page being rendered, for the warnings.
- on_page_content
- on_post_page
- on_post_build (priority -100: after every other plugin wrote its files): stops the background work,
  then the features' checks of the written site; after a full build, evicts the store's unused entries.
- on_build_error: stops the background work.
- on_serve: watches the snippets folder too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger

from fieldnotes import features, integrations
from fieldnotes.build_state import Build
from fieldnotes.config import FieldNotesConfig
from fieldnotes.examples import snippets_dir
from fieldnotes.integrations import lazy_imports

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

log = get_plugin_logger("fieldnotes")
if integrations.tested("mkdocs-jupyter"):
    lazy_imports.defer(*lazy_imports.HEAVY)  # before MkDocs loads mkdocs-jupyter (see lazy_imports.py)


class FieldNotesPlugin(BasePlugin[FieldNotesConfig]):
    def __init__(self) -> None:
        super().__init__()
        self.dirty = False
        """`--dirty` (with on_startup, the plugin lives as long as `mkdocs serve`)."""
        self.build: Build | None = None
        """This build's state, made afresh by each on_config (none before the first)."""
        self.features: list[features.Feature] = []

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.dirty = dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.build = Build.of(config.config_file_path, self.config, self.dirty)
        self.features = features.load(self.build, config)
        for feature in self.features:
            feature.on_config(config)
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        for feature in self.features:
            feature.on_pre_build(config)

    @event_priority(50)  # before mkdocs-jupyter turns the notebooks into pages
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        for feature in self.features:
            feature.on_files(files, config)
        return files

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        for feature in self.features:
            feature.on_nav(nav, config, files)
        return nav

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        self.build.page_path = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        for feature in self.features:
            markdown = feature.on_page_markdown(markdown, page, config, files)
        return markdown

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        for feature in self.features:
            html = feature.on_page_content(html, page, config, files)
        return html

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        for feature in self.features:
            output = feature.on_post_page(output, page, config)
        return output

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self._stop()
        build = self.build
        if build.code_blocks is not None and (note := build.code_blocks.note()):
            log.info(note.removeprefix("fieldnotes "))  # not a warning: markdown-exec runs them, as before
        for feature in self.features:
            feature.on_post_build(config)
        if build.store.reuse and self.config.execute and not build.dirty:
            for path in build.store.evict_unused(build.started):
                log.debug(f"evicted {path.name}: this full build did not use it")

    def on_build_error(self, *, error: Exception) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.build is None:
            return
        if self.build.code_blocks is not None:
            self.build.code_blocks.close()
        self.build.scheduler.close()
        for feature in self.features:
            feature.close()

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable) -> LiveReloadServer:
        # mkdocs serve watches docs/ only; an edited snippet or recorded output must rebuild too.
        server.watch(str(self.build.root / snippets_dir(self.build.root)))
        return server
