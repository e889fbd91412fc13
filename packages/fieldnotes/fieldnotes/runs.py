"""A build's runs of its examples, each keyed by what makes it differ (its snippet and its time limit),
and each one's drift, computed once per run. The fence's formatter asks for a block's outcome
(`outcome`): the run started ahead of time if there is one (the MkDocs plugin starts every page's at
`on_files`, `start`), else the store's, else a run started now, so the formatter is right on its own
under any host."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future

from fieldnotes import runner
from fieldnotes.blocks import Page
from fieldnotes.cache import Store
from fieldnotes.examples import Example, drift
from fieldnotes.jobs import Scheduler


class Runs:
    def __init__(self, store: Store, scheduler: Scheduler, printed_by: str, record_command: str) -> None:
        self.store = store
        self.scheduler = scheduler
        self.printed_by = printed_by
        self.record_command = record_command
        self.runs: dict[tuple[str, float], Future] = {}
        """Each run by what makes it differ: its snippet and its time limit."""
        self.problems: dict[tuple[str, float], str | None] = {}
        """Each run's drift (or None), computed once per run."""

    def start(self, examples: list[Example], order: list[tuple[str, float]]) -> None:
        """Start these runs now (or take their stored ones), in this order, so they run while the host
        reads the pages."""
        known = {example.snippet: example for example in examples}
        for run_key in order:
            self._future(known[run_key[0]], run_key[1])

    def _future(self, example: Example, limit: float) -> Future:
        run_key = (example.snippet, limit)
        if run_key in self.runs:
            return self.runs[run_key]
        stored = self.store.load_run(example)
        if stored is not None:
            self.runs[run_key] = Future()
            self.runs[run_key].set_result(stored)
            return self.runs[run_key]

        def keep(run: runner.Run) -> None:
            self.problems[run_key] = self._drift(example, run)
            if self.problems[run_key] is None:  # a failure is never reused: it runs again
                self.store.save_run(example, run)

        self.runs[run_key] = self.scheduler.submit(example.snippet, limit, then=None, done=keep)
        return self.runs[run_key]

    def outcome(self, example: Example, limit: float) -> tuple[str, str | None]:
        """What the example printed, run under `limit`, and what is wrong with it (None: nothing)."""
        run_key = (example.snippet, limit)
        try:
            run = self._future(example, limit).result()
        except runner.SnippetTimeout as timeout:
            return "", f"{timeout}. It printed before that:\n{timeout.partial_output}"
        if run_key not in self.problems:  # a stored run: checked once, here
            self.problems[run_key] = self._drift(example, run)
        return run.output, self.problems[run_key]

    def _drift(self, example: Example, run: runner.Run) -> str | None:
        return drift(example, run, self.printed_by, self.record_command)


def run_order(pages: Iterable[Page], examples: list[Example], default: float) -> list[tuple[str, float]]:
    """The runs a build asks for, each once, by what makes them differ (snippet, time limit): each page's
    blocks in page order, before the next page's, then the examples no page shows; only examples."""
    known = {example.snippet for example in examples}
    wanted = [(b.snippet, b.timeout if b.timeout is not None else default) for page in pages for b in page.blocks]
    shown = {snippet for snippet, _ in wanted}
    wanted += [(e.snippet, default) for e in examples if e.snippet not in shown]
    return list(dict.fromkeys(key for key in wanted if key[0] in known))
