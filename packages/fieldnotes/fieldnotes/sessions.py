"""Code blocks run as markdown-exec runs them, each checked on its own: the blocks of one `session=` share
one namespace, in one process, in build order (across pages too); a block without a session runs alone
in a process of its own, as a snippet file does.

markdown-exec runs every block in the build's own process, with one globals dict per session. Here each
session is a process forked from the runner's fork server (`fieldnotes.runner`), so what one session does
(grad mode, a seed, a monkeypatch) stays in it, and a block that hangs is killed at its own time limit
without stopping the build: the block's run raises `SnippetTimeout` naming it, its session's process is
ended, and the session's later blocks are not run (`SessionEnded`), as no namespace holds what they need.

Each block's output is captured on its own (`fieldnotes.session_process`).

A block's stored run (`fieldnotes.cache.Store`) is keyed by the environment, its session's blocks up to
and including it (each one's code, name, working folder and width) and the contents of the project's
modules they import: an edit to one block runs it and its session's later blocks again. A session whose
blocks all come from the store starts no process. When a block must run after blocks that came from the
store, or whose process was ended to keep the number of live processes down, those blocks run again
first, in order, to rebuild the namespace it expects (their outputs were checked when they were stored).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes import runner, session_process
from fieldnotes.cache import Store, code_digest
from fieldnotes.runner import Run, SnippetTimeout
from fieldnotes.session_process import Block, SessionProcess

__all__ = ["Block", "SessionEnded", "Sessions", "project_imports"]

_CODE = code_digest(__file__, session_process.__file__)


class SessionEnded(Exception):
    """A block of the session timed out before this one, which ended the session's process."""


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\w+)|import[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*))", re.MULTILINE)


def project_imports(root: Path, code: str) -> list[str]:
    """The project's own modules the code imports, directly or through one another, root-relative: a
    top-level `NAME.py`, or every file of a package folder `NAME/`, in the root (the child's sys.path)."""
    found: dict[str, None] = {}
    reading = [code]
    while reading:
        for match in _IMPORT.finditer(reading.pop(0)):
            names = match[1] and [match[1]] or [n.strip() for n in match[2].split(",")]
            for name in names:
                module, package = root / f"{name}.py", root / name
                files = [module] if module.is_file() else []
                if (package / "__init__.py").is_file():
                    files = sorted(package.rglob("*.py"))
                for file in files:
                    path = file.relative_to(root).as_posix()
                    if path not in found:
                        found[path] = None
                        reading.append(file.read_text(encoding="utf-8"))
    return list(found)


@dataclass
class _Session:
    name: str | None
    key: str = ""
    """The key of its last block submitted: the next one's key covers it."""
    process: SessionProcess | None = None
    ran: list[Block] = field(default_factory=list)
    """The blocks its live process has run, in order."""
    owed: list[Block] = field(default_factory=list)
    """Blocks before the next one that its live process has not run (they came from the store)."""
    ended: str | None = None
    """Why it runs nothing more: the block that timed out or ended its process."""
    waiting: list = field(default_factory=list)
    """Blocks submitted and not yet run: (block, key, keep, future), in order."""
    draining: bool = False
    """Whether a worker is running its waiting blocks (one at a time, in order)."""
    used: int = 0


class Sessions:
    """The sessions of one build (or one `record`): `submit` each block in build order."""

    def __init__(
        self,
        root: Path,
        store: Store,
        start: Callable[[Callable[[], None]], object] | None = None,
        live: int = runner.JOBS + 1,
    ) -> None:
        self.root = root
        self.store = store
        self._executor = None if start is not None else ThreadPoolExecutor(max_workers=runner.JOBS)
        self._start = start or self._executor.submit
        """Runs work off the caller's thread: the build's `Scheduler.submit_call`."""
        self.live = live
        """How many session processes may stay alive between their blocks."""
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._clock = 0

    def submit(self, session: str | None, block: Block, keep: Callable[[Run], bool] = lambda run: True) -> Future:
        """A future of the block's `Run` (or SnippetTimeout, SessionEnded). `keep(run)` says whether the run
        is stored for the next build (a run that drifted is not: it runs again)."""
        future: Future = Future()
        with self._lock:
            state = _Session(None) if session is None else self._sessions.setdefault(session, _Session(session))
            state.key = key = self._key(state.key, block)
            state.waiting.append((block, key, keep, future))
            if state.draining:
                return future
            state.draining = True
        # One worker per session at a time, running its blocks in the order submitted: a worker never
        # waits for another's block, so a bounded pool cannot deadlock on a session.
        self._start(lambda: self._drain(state))
        return future

    def _key(self, previous: str, block: Block) -> str:
        imports = project_imports(self.root, block.code)
        named = b"".join(p.encode() + b"\0" + (self.root / p).read_bytes() + b"\0" for p in imports)
        settings = f"{block.name}\0{block.workdir or ''}\0{block.width or ''}\0".encode()
        return self.store.key(f"session block {_CODE}", previous.encode() + b"\0", settings, block.code.encode(), named)

    def _drain(self, state: _Session) -> None:
        while True:
            with self._lock:
                if not state.waiting:
                    state.draining = False
                    if state.name is None and state.process is not None:  # a block alone: its process goes
                        state.process.close()
                        state.process = None
                    return
                block, key, keep, future = state.waiting.pop(0)
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._run(state, block, key, keep))
            except BaseException as error:  # noqa: BLE001 - the future's owner sees it
                future.set_exception(error)

    def _run(self, state: _Session, block: Block, key: str, keep: Callable[[Run], bool]) -> Run:
        if state.ended is not None:
            raise SessionEnded(f"{block.name} was not run: {state.ended}")
        stored = self.store.load(key)
        if stored is not None:
            state.owed.append(block)
            return Run(output=stored["output"], exit_code=stored["exit_code"])
        process = self._process(state)
        try:
            for earlier in state.owed:  # the namespace this block expects
                self._checked(state, process.run(earlier), earlier)
                state.ran.append(earlier)
            state.owed = []
            run = process.run(block)
        except SnippetTimeout as timeout:
            state.ended = f"{timeout}, which ended session {state.name!r}" if state.name else str(timeout)
            state.process = None
            raise
        state.ran.append(block)
        self._checked(state, run, block)
        if keep(run):
            self.store.save(key, {"name": block.name, "output": run.output, "exit_code": run.exit_code})
        return run

    @staticmethod
    def _checked(state: _Session, run: Run, block: Block) -> None:
        """A block that ended its process (os._exit, a signal) ends its session: nothing holds its namespace."""
        if state.process is not None and not state.process.alive:
            state.process.close()
            state.process = None
            state.ended = f"{block.name} ended its process (exit code {run.exit_code})"

    def _process(self, state: _Session) -> SessionProcess:
        with self._lock:
            self._clock += 1
            state.used = self._clock
            if state.process is not None:
                return state.process
            state.owed = state.ran + state.owed  # its process was ended between its blocks
            state.ran = []
            self._end_idle(keep=self.live - 1)
            state.process = SessionProcess(self.root)
            return state.process

    def _end_idle(self, keep: int) -> None:
        """End the least recently used idle session processes beyond `keep`: if such a session goes on,
        its blocks run again first."""
        idle = [s for s in self._sessions.values() if s.process is not None and not s.draining]
        for state in sorted(idle, key=lambda s: s.used)[: max(0, len(idle) - keep)]:
            state.process.close()
            state.process = None

    def close(self) -> None:
        """End every session's process (at the end of the build)."""
        with self._lock:
            for state in self._sessions.values():
                if state.process is not None and not state.draining:
                    state.process.close()
                    state.process = None
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
