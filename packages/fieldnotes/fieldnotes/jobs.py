"""The one scheduler of snippet runs: a build's page blocks, diagrams, the notebook's execution and the
API index's questions to torch go through it, at most `runner.JOBS` at a time, each in a process forked
from the fork server. Each run's time limit counts from the start of its own process's run of the
snippet (`runner.run_snippet`), never the time it waited here for a worker or for the fork server.

A free worker takes the waiting run of the highest `priority`, and among equal priorities the one asked
first. A snippet's priority is its time limit unless given: a page gives a longer one (`timeout="180"`)
to an example it knows is slow, so the slowest start first instead of last, and with nothing known
runs start in the order they were asked for. `FIRST` is for a run the build waits for before it can
go on, or one with no time limit (the notebook's)."""

from __future__ import annotations

import heapq
import itertools
import re
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from fieldnotes import runner
from fieldnotes.examples import snippets_dir

T = TypeVar("T")
FIRST = float("inf")
"""The priority of a run the build waits for before it can go on (a diagram: the pages' notebooks
are made with it), or of one without a time limit."""


_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:from|import)[ \t]+torch\b", re.MULTILINE)


def preload(root: Path, torch: bool) -> tuple[str, ...]:
    """What the fork server imports once for all runs: torch, when the torch features are on and a file
    under snippets/ imports it. A project whose examples never import torch would pay for its import at
    each build that runs one, for nothing."""
    if torch and any(
        _IMPORTS_TORCH.search(path.read_text(encoding="utf-8")) for path in (root / snippets_dir(root)).rglob("*.py")
    ):
        return ("torch",)
    return ()


class Scheduler:
    def __init__(self, root: Path, jobs: int = runner.JOBS, preload: tuple[str, ...] = ("torch",)) -> None:
        self.root = root
        self.preload = preload
        """What each run's process has imported before it starts (the fork server imports it once)."""
        self.jobs = jobs
        self._waiting: list[tuple[float, int, Future, Callable]] = []  # a heap: -priority, order asked
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._workers = 0
        self._closed = False
        self._runs: dict[object, Future] = {}
        """The runs asked for with a `same` key: asked again with it (a diagram, by its page and by its
        page's notebook), each is the first run."""

    def submit(
        self,
        snippet: str,
        timeout: float,
        then: str | None = None,
        done: Callable[[runner.Run], None] | None = None,
        priority: float | None = None,
        same: object = None,
        before: str | None = None,
    ) -> Future:
        """A future of the run (`runner.Run`; or it raises `runner.SnippetTimeout`). `done(run)`, if given,
        is called with the run in the worker, before the future resolves. `same`, if given, names what the
        run depends on (the store's key of the snippet and its helpers, `then`, `before`): a run asked
        again with it is the one asked first. `before` and `then` are code run around the snippet
        (`runner.run_snippet`)."""
        if same is not None and same in self._runs:
            return self._runs[same]

        def run() -> runner.Run:
            result = runner.run_snippet(self.root, snippet, timeout, then=then, before=before)
            if done is not None:
                done(result)
            return result

        future = self.submit_call(run, timeout if priority is None else priority)
        if same is not None:
            self._runs[same] = future
        return future

    def submit_call(self, work: Callable[[], T], priority: float = 0.0) -> Future[T]:
        """A future of `work()`, run when a worker is free: work that runs its processes as forks of the
        server (`runner.call`, `runner.start_module`), and holds its worker while they run."""
        runner.start_server(self.preload)  # idempotent; imports torch once, only if something must run
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the scheduler is closed")
            heapq.heappush(self._waiting, (-priority, next(self._order), future, work))
            if self._workers < self.jobs:
                self._workers += 1
                threading.Thread(target=self._work, name=f"snippet-{self._workers}").start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._waiting:  # nothing left: a later submit starts a worker again
                    self._workers -= 1
                    return
                _, _, future, work = heapq.heappop(self._waiting)
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work())
            except BaseException as error:  # noqa: BLE001 - the future's owner sees it
                future.set_exception(error)

    def run(self, snippet: str, timeout: float, then: str | None = None, same: object = None) -> runner.Run:
        return self.submit(snippet, timeout, then, same=same).result()

    def close(self) -> None:
        """No new runs; those asked for finish in their threads."""
        with self._lock:
            self._closed = True
