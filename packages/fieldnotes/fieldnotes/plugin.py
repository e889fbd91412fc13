"""The MkDocs plugin `fieldnotes`: it executes every example and refuses to show one that drifted.

Its features, each with its options in the plugin's config (`fieldnotes.config`):

- the pages' executed blocks (`fieldnotes.features.page_blocks`): each snippet under snippets/ runs in a process
  of its own (`fieldnotes.runner`, through the build's `fieldnotes.jobs.Scheduler`) or comes from the
  store (`fieldnotes.cache`), and its block shows its output only if it equals the recorded one;
- with `torch: true` only (`fieldnotes.torch`): the pinned torch's check, the ```autograd-graph fence
  (`fieldnotes.torch.graph_fence`), the versions notes, and the API index page (`api_index`,
  `fieldnotes.torch.api_page`);
- downloads: every snippet, and each page's examples as a notebook (`fieldnotes.features.downloads`);
- search entries for the messages the examples print (`search_messages`, `fieldnotes.features.message_search`);
- an "Open in Colab" badge for each page's notebook (`colab`, `fieldnotes.features.colab`);
- the notebook pages mkdocs-jupyter renders (`notebook_pages`, `fieldnotes.features.notebook_pages`), executed
  through the scheduler, their kernels forked from its fork server (`fieldnotes.integrations.notebook_runs`);
- the link check of the written site (`links`, `fieldnotes.checks.links`);
- the HTML rewrites a site turns on (`html`: `code_spans`, `indentation`, `output_lines`).

Its events, in the order MkDocs calls them (priority 0 unless given):

- on_startup: notes whether the build is dirty (with this event, the plugin lives as long as
  `mkdocs serve`; each build gets its own state all the same).
- on_config: makes this build's state (`Build`: its store, scheduler and features); checks torch;
  adds the fences; keys mkdocs-jupyter's cache by the environment.
- on_pre_build: makes the theme's search index take unchanged pages' entries from the store.
- on_files (priority 50, before mkdocs-jupyter wraps the notebooks): parses every page once (the
  build's `pages`); submits every diagram's run, the notebook's execution and every block's run (in
  the order the pages show them), and starts the API index's reading; adds the downloads and the API
  index page.
- on_nav: the pages' titles, for the API index.
- on_page_markdown: numbers each executed block's fence (before pymdownx.snippets includes its
  file); links the page's notebook; writes the API index page.
- on_page_content: checks the page's claims; slims a notebook page; trims the API index's table of
  contents; with `html`'s options, drops, in every page's code, the spans that show no colour of their
  own, and marks which lines of each output may wrap (`fieldnotes.render.output_lines`).
- on_post_page: with `html: {indentation: true}`, drops the templates' indentation.
- on_post_build (priority -100, after every other plugin wrote its files): checks the links; after a
  full build, evicts the store's entries it did not use.
- on_build_error: stops the background work.
- on_serve: watches snippets/ too.

Every problem is logged as a warning, which fails the strict build.
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger

from fieldnotes import blocks, integrations
from fieldnotes.build_state import Build
from fieldnotes.checks.links import LinkCheck
from fieldnotes.config import FieldNotesConfig
from fieldnotes.examples import SNIPPETS_DIR, project_examples
from fieldnotes.features.colab import Colab, repository
from fieldnotes.features.downloads import Downloads
from fieldnotes.features.message_search import MessageSearch
from fieldnotes.features.page_blocks import PageBlocks
from fieldnotes.integrations import lazy_imports, search_entries
from fieldnotes.jobs import Scheduler
from fieldnotes.render.code_spans import slim_code_spans
from fieldnotes.render.indentation import strip_indentation
from fieldnotes.render.output_lines import mark_output_lines
from fieldnotes.render.page_notebook import Diagrams

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.livereload import LiveReloadServer
    from mkdocs.structure.files import Files
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

    from fieldnotes.features.notebook_pages import NotebookPages
    from fieldnotes.integrations.notebook_runs import NotebookRuns
    from fieldnotes.torch.api_page import ApiIndexPage
    from fieldnotes.torch.versions_page import VersionsPage

log = get_plugin_logger("fieldnotes")
if integrations.tested("mkdocs-jupyter"):
    lazy_imports.defer(*lazy_imports.HEAVY)  # before MkDocs loads mkdocs-jupyter (see lazy_imports.py)

JUPYTER_PLUGIN = "mkdocs-jupyter"


class FieldNotesPlugin(BasePlugin[FieldNotesConfig]):
    def __init__(self) -> None:
        super().__init__()
        self.dirty = False
        # This build's state, made afresh by each on_config (none before the first):
        self.build: Build | None = None
        self.scheduler: Scheduler | None = None
        self.versions: VersionsPage | None = None
        self.blocks: PageBlocks | None = None
        self.downloads: Downloads | None = None
        self.colab: Colab | None = None
        self.messages: MessageSearch | None = None
        self.api_page: ApiIndexPage | None = None
        self.links: LinkCheck | None = None
        self.notebooks: NotebookPages | None = None
        self.notebook_runs: NotebookRuns | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.dirty = dirty

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        torch = self.config.torch  # the torch features (fieldnotes.torch) are imported only with it
        if self.config.api_index.enabled and not torch:
            raise PluginError("fieldnotes: api_index lists torch names, and needs `torch: true`")
        if torch:
            from fieldnotes.torch.pin import require_pinned_torch

            require_pinned_torch(Path(config.config_file_path).parent)
        if not self.config.execute:
            log.info("execute: false, so no example is run: pages show the recorded outputs, unchecked.")
        build = self.build = Build.of(config.config_file_path, self.config, self.dirty)
        self.scheduler = build.scheduler
        self.versions = self.api_page = None
        if torch:
            from fieldnotes.torch.api_page import ApiIndexPage
            from fieldnotes.torch.versions_page import VersionsPage

            self.versions = VersionsPage(build)
            self.api_page = ApiIndexPage(build, self.scheduler) if self.config.api_index.enabled else None
        build.block_notes = [self.versions.note] if self.versions is not None else []
        # the examples' ids: the API index and the message entries link them
        build.block_ids = self.config.api_index.enabled or self.config.search_messages.enabled
        self.messages = MessageSearch(build.root) if self.config.search_messages.enabled else None
        self.blocks = PageBlocks(build)
        diagrams = Diagrams(build.store, self.scheduler, self.config.timeout, self.config.execute) if torch else None
        self.downloads = Downloads(build, diagrams)
        colab = self.config.colab
        self.colab = None
        if colab.enabled:
            self.colab = Colab(repository(colab.repository), colab.branch, colab.versions_page, build.printed_by)
        self.links = LinkCheck(build.store) if self.config.links.enabled else None
        jupyter = config.plugins.get(JUPYTER_PLUGIN)
        self.notebooks = self.notebook_runs = None
        if jupyter is not None and self.config.notebook_pages.enabled:
            from fieldnotes.features.notebook_pages import NotebookPages  # jupytext: only where there are notebooks

            self.notebooks = NotebookPages(build, jupyter)
        if jupyter is not None:
            # mkdocs-jupyter's cache key covers the notebook and its settings, not what is installed:
            # give each environment its own cache, so a torch upgrade re-executes the notebook. It also
            # evicts what a build did not use: executed and unexecuted builds keep separate folders.
            folder = build.store.environment[:16] + ("" if jupyter.config["execute"] else "-unexecuted")
            jupyter.config["cache_dir"] = f"{jupyter.config['cache_dir']}/{folder}"
        python = f"Python {platform.python_version()}"
        config.extra["built_with"] = f"{build.printed_by} and {python}" if self.config.torch else python
        fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        fences[:] = [f for f in fences if f["name"] not in ("py", "python")]
        self.blocks.on_config(config)
        if torch:
            from fieldnotes.torch import graph_fence

            page = lambda: build.page_path  # noqa: E731
            timeout, execute = self.config.timeout, self.config.execute
            fences.append(
                graph_fence.make_fence(
                    build.store, self.scheduler, timeout, page, execute, record_command=self.config.record_command
                )
            )
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        search = config.plugins.get(search_entries.SEARCH_PLUGIN)
        if search is not None and search.config.enabled and integrations.tested("mkdocs-material"):
            search_entries.reuse_entries(search, self.build.store)
            if self.messages is not None:
                self.messages.extend(search)

    @event_priority(50)  # before mkdocs-jupyter turns the notebooks into pages
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        for recorded in [f for f in files if f.src_uri.endswith(".md.out")]:  # a page's recorded outputs
            files.remove(recorded)
        # Each page parsed once, here; every feature reads build.pages.
        self.build.pages = {page.src_uri: blocks.parse(page.content_string) for page in files.documentation_pages()}
        if self.config.execute and self.config.torch:  # the diagrams first: the pages' notebooks wait for them
            from fieldnotes.torch import graph_fence

            graph_fence.start(self.build.store, self.scheduler, self.config.timeout, self.build.pages.values())
        if self.notebooks is not None:
            self.notebooks.on_files(files, config)
        jupyter = config.plugins.get(JUPYTER_PLUGIN)
        if jupyter is not None and integrations.tested("mkdocs-jupyter"):
            # Imported only here: mkdocs-jupyter is slow to import, and a build without a notebook needs none of it.
            from fieldnotes.integrations.notebook_runs import NotebookRuns

            self.notebook_runs = NotebookRuns(self.scheduler)
            self.notebook_runs.start(jupyter, files)
        examples = project_examples(self.build.root)
        if self.config.execute:
            self.blocks.start(examples)
        if self.api_page is not None:
            self.api_page.on_files(files, config)
        self.downloads.on_files(files, config, examples)
        if self.colab is not None:
            self.colab.notebooks = {**self.downloads.notebooks, **(self.notebooks.ipynb if self.notebooks else {})}
            self.colab.on_files(files, config)
        return files

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        if self.api_page is not None:
            self.api_page.on_nav(nav)
        return nav

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        self.build.page_path = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        markdown = self.downloads.on_page_markdown(markdown, page)
        if self.versions is not None:
            markdown = self.versions.on_page_markdown(markdown, page, files)
        if self.api_page is not None:
            markdown = self.api_page.on_page_markdown(markdown, page)
        return markdown

    def on_page_content(self, html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        html = self.blocks.on_page_content(html, page)
        if self.links is not None:
            self.links.on_page_content(page, config)
        if self.notebooks is not None:
            html = self.notebooks.on_page_content(html, page)
        if self.colab is not None:
            html = self.colab.on_page_content(html, page, files)
        parsed = self.build.pages.get(page.file.src_uri)
        if self.messages is not None and parsed is not None:
            self.messages.on_page(page, parsed)
        if self.config.html.code_spans:
            html = slim_code_spans(html)  # every page's code, the notebook's cells too
        if self.api_page is not None:
            html = self.api_page.on_page_content(html, page)
        return mark_output_lines(html) if self.config.html.output_lines else html

    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        return strip_indentation(output) if self.config.html.indentation else output

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self._stop()
        if self.build.code_blocks is not None and (note := self.build.code_blocks.note()):
            log.info(note.removeprefix("fieldnotes "))  # not a warning: markdown-exec runs them, as before
        if self.links is not None:
            self.links.on_post_build(config)
        build = self.build
        if build.store.reuse and self.config.execute and not build.dirty:
            for path in build.store.evict_unused(build.started):
                log.debug(f"evicted {path.name}: this full build did not use it")

    def on_build_error(self, *, error: Exception) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.build is not None and self.build.code_blocks is not None:
            self.build.code_blocks.close()
        if self.scheduler is not None:
            self.scheduler.close()
        if self.notebook_runs is not None:
            self.notebook_runs.close()

    def on_serve(self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable) -> LiveReloadServer:
        # mkdocs serve watches docs/ only; an edited snippet or recorded output must rebuild too.
        server.watch(str(self.build.root / SNIPPETS_DIR))
        return server
