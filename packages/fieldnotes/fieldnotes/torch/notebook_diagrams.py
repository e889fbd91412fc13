"""How a page's notebook shows the diagram of an ```autograd-graph fence: drawn as the page's fence draws
it, through the build's store and scheduler, so both share one drawing. The torch features give it to the
build (`Build.diagrams`); `fieldnotes.render.page_notebook` asks it for each fence's key, caption and SVG."""

from __future__ import annotations

from dataclasses import dataclass

from fieldnotes.cache import Store
from fieldnotes.jobs import Scheduler
from fieldnotes.torch import graph_fence


@dataclass(frozen=True)
class Diagrams:
    """How a notebook gets the diagram of an ```autograd-graph fence: drawn as the page's fence draws it
    (fieldnotes.torch.graph_fence), through the build's store and scheduler, so both share one drawing."""

    store: Store
    scheduler: Scheduler
    timeout: float
    execute: bool = True

    def key(self, body: str) -> str:
        """The diagram's drawing key, for a notebook's key; marked "not drawn" unless its drawing is in the
        store, so that a notebook made while its diagram could not be drawn (a failed run, a build that
        runs nothing) is never reused once it can be."""
        try:
            key = graph_fence.cache_key(self.store, graph_fence.parse(body, self.store.root))
        except graph_fence.FenceError as error:  # the page's own fence reports it, and fails the build
            return f"not drawn: {error}"
        return key if self.execute and self.store.load(key) is not None else f"not drawn yet: {key}"

    def svg(self, body: str) -> str | None:
        if not self.execute:  # a build that runs nothing draws nothing
            return None
        try:
            spec = graph_fence.parse(body, self.store.root)
            return graph_fence.cached_draw(self.store, self.scheduler, spec, self.timeout)["svg"]
        except graph_fence.FenceError:  # the page's own fence reports it, and fails the build
            return None

    def labels(self, body: str) -> tuple[str, str] | None:
        try:
            spec = graph_fence.parse(body, self.store.root)
        except graph_fence.FenceError:  # the page's own fence reports it, and fails the build
            return None
        return spec.title, spec.caption or ""
