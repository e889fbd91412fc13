"""The features every site gets (registered under `fieldnotes.features` as `core`), each where its
options (`fieldnotes.config`) and the installed plugins allow it."""

from __future__ import annotations

import platform

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger

from fieldnotes import integrations
from fieldnotes.build_state import Build
from fieldnotes.checks.links import LinkCheck
from fieldnotes.features import Feature
from fieldnotes.features.colab import Colab, repository
from fieldnotes.features.downloads import Downloads
from fieldnotes.features.message_search import MessageSearch
from fieldnotes.features.page_blocks import PageBlocks, PageFiles
from fieldnotes.integrations import search_entries
from fieldnotes.render.code_spans import slim_code_spans
from fieldnotes.render.indentation import strip_indentation
from fieldnotes.render.output_lines import mark_output_lines

log = get_plugin_logger("fieldnotes")
JUPYTER_PLUGIN = "mkdocs-jupyter"


def features(build: Build, config) -> list[Feature]:
    options = build.config
    if options.api_index.enabled and not options.torch:
        raise PluginError("fieldnotes: api_index lists torch names, and needs `torch: true`")
    if not options.execute:
        log.info("execute: false, so no example is run: pages show the recorded outputs, unchecked.")
    # the examples' ids: the API index and the message entries link them
    build.block_ids = options.api_index.enabled or options.search_messages.enabled
    found = [PageFiles(build), PageBlocks(build), Downloads(build), SiteFacts(build), HtmlRewrites(options.html)]
    if options.search_messages.enabled:
        found.append(MessageSearch(build))
    if options.colab.enabled:
        colab = options.colab
        where = repository(colab.repository)
        found.append(Colab(where, colab.branch, colab.versions_page, build.printed_by, build.notebooks))
    if options.links.enabled:
        found.append(LinkCheck(build.store))
    jupyter = config.plugins.get(JUPYTER_PLUGIN)
    if jupyter is not None:
        found.append(JupyterCache(build, jupyter))
        if options.notebook_pages.enabled:
            from fieldnotes.features.notebook_pages import NotebookPages  # jupytext: only where there are notebooks

            found.append(NotebookPages(build, jupyter))
        if integrations.tested("mkdocs-jupyter"):
            # Imported only here: mkdocs-jupyter is slow to import, and a build without a notebook needs none of it.
            from fieldnotes.integrations.notebook_runs import NotebookRuns

            found.append(NotebookRuns(build.scheduler, jupyter))
    return found


class SiteFacts(Feature):
    """What the theme shows of the build (`extra.built_with`), and the store's entries of unchanged pages'
    search entries, with mkdocs-material's search."""

    def __init__(self, build: Build) -> None:
        self.build = build

    def on_config(self, config) -> None:
        python = f"Python {platform.python_version()}"
        torch = self.build.config.torch
        config.extra["built_with"] = f"{self.build.printed_by} and {python}" if torch else python

    def on_pre_build(self, config) -> None:
        search = config.plugins.get(search_entries.SEARCH_PLUGIN)
        if search is not None and search.config.enabled and integrations.tested("mkdocs-material"):
            search_entries.reuse_entries(search, self.build.store)


class JupyterCache(Feature):
    """mkdocs-jupyter's cache key covers the notebook and its settings, not what is installed: each
    environment gets its own cache, so a torch upgrade re-executes the notebook. It also evicts what a
    build did not use: executed and unexecuted builds keep separate folders."""

    def __init__(self, build: Build, jupyter) -> None:
        self.build, self.jupyter = build, jupyter

    def on_config(self, config) -> None:
        settings = self.jupyter.config
        folder = self.build.store.environment[:16] + ("" if settings["execute"] else "-unexecuted")
        settings["cache_dir"] = f"{settings['cache_dir']}/{folder}"


class HtmlRewrites(Feature):
    """The rewrites of the written HTML a site turns on (`html`), after every other feature's."""

    order = 100

    def __init__(self, options) -> None:
        self.options = options

    def on_page_content(self, html: str, page, config, files) -> str:
        if self.options.code_spans:
            html = slim_code_spans(html)  # every page's code, the notebook's cells too
        return mark_output_lines(html) if self.options.output_lines else html

    def on_post_page(self, output: str, page, config) -> str:
        return strip_indentation(output) if self.options.indentation else output
