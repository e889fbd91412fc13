"""The one scheduler of snippet runs: a build's page blocks, diagrams, the notebook's execution and the
API index's questions to torch go through it, at most `runner.JOBS` at a time, each in a process forked
from the fork server. Each run's time limit counts from the start of its own process's run of the
snippet (`runner.run_snippet`), never the time it waited here for a worker or for the fork server."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from fieldnotes import runner

T = TypeVar("T")


class Scheduler:
    def __init__(self, root: Path, jobs: int = runner.JOBS, preload: tuple[str, ...] = ("torch",)) -> None:
        self.root = root
        self.preload = preload
        """What each run's process has imported before it starts (the fork server imports it once)."""
        self._pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="snippet")

    def submit(
        self, snippet: str, timeout: float, then: str | None = None, done: Callable[[runner.Run], None] | None = None
    ) -> Future:
        """A future of the run (`runner.Run`; or it raises `runner.SnippetTimeout`). `done(run)`, if given,
        is called with the run in the worker, before the future resolves."""

        def run() -> runner.Run:
            result = runner.run_snippet(self.root, snippet, timeout, then=then)
            if done is not None:
                done(result)
            return result

        return self.submit_call(run)

    def submit_call(self, work: Callable[[], T]) -> Future[T]:
        """A future of `work()`, run when a worker is free: work that runs its processes as forks of the
        server (`runner.call`, `runner.start_module`), and holds its worker while they run."""
        runner.start_server(self.preload)  # idempotent; imports torch once, only if something must run
        return self._pool.submit(work)

    def run(self, snippet: str, timeout: float, then: str | None = None) -> runner.Run:
        return self.submit(snippet, timeout, then).result()

    def close(self) -> None:
        """No new runs; those under way finish in their threads."""
        self._pool.shutdown(wait=False)
