"""The torch features (registered under `fieldnotes.features` as `torch`), with `torch: true` only:
the pinned torch's check, the ```autograd-graph fence and its diagrams in the pages' notebooks, the
notes of what other torch releases print (with the versions page), and the API index page."""

from __future__ import annotations

from fieldnotes.build_state import Build
from fieldnotes.features import Feature


def features(build: Build, config) -> list[Feature]:
    options = build.config
    if not options.torch:
        return []
    from fieldnotes.torch.api_page import ApiIndexPage
    from fieldnotes.torch.pin import require_pinned_torch
    from fieldnotes.torch.versions_page import VersionsPage

    require_pinned_torch(build.root)
    found: list[Feature] = [GraphFence(build)]
    if options.versions.page:
        found.append(VersionsPage(build))
    if options.api_index.enabled:
        found.append(ApiIndexPage(build, build.scheduler))
    return found


class GraphFence(Feature):
    """The ```autograd-graph fence; its runs start with the files known, before the notebooks' and the
    examples' (a page's notebook waits for its diagrams)."""

    order = 10

    def __init__(self, build: Build) -> None:
        from fieldnotes.torch.notebook_diagrams import Diagrams

        self.build = build
        options = build.config
        build.diagrams = Diagrams(build.store, build.scheduler, options.timeout, options.execute)

    def on_config(self, config) -> None:
        from fieldnotes.torch import graph_fence

        build, options = self.build, self.build.config
        fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        page = lambda: build.page_path  # noqa: E731
        fence = graph_fence.make_fence(
            build.store, build.scheduler, options.timeout, page, options.execute, record_command=options.record_command
        )
        fences.append(fence)

    def on_files(self, files, config) -> None:
        from fieldnotes.torch import graph_fence

        build = self.build
        if build.config.execute:
            graph_fence.start(build.store, build.scheduler, build.config.timeout, build.pages.values())
