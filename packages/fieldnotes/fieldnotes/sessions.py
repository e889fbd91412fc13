"""Code blocks run as markdown-exec runs them, each checked on its own: the blocks of one `session=` share
one namespace, in one process, in build order (across pages too); a block without a session runs alone
in a process of its own, as a snippet file does.

markdown-exec runs every block in the build's own process, with one globals dict per session. Here each
session is a process forked from the runner's fork server (`fieldnotes.runner`), so what one session does
(grad mode, a seed, a monkeypatch) stays in it, and a block that hangs is killed at its own time limit
without stopping the build: the block's run raises `SnippetTimeout` naming it, its session's process is
ended, and the session's later blocks are not run (`SessionEnded`), as no namespace holds what they need.

Each block's output is captured on its own, at the file-descriptor level as the runner captures a
snippet's: prints, warnings, what C code writes and a traceback, in the order they happened.

A block's stored run (`fieldnotes.cache.Store`) is keyed by the environment, its session's blocks up to
and including it (each one's code, name, working folder and width) and the contents of the project's
modules they import: an edit to one block runs it and its session's later blocks again. A session whose
blocks all come from the store starts no process. When a block must run after blocks that came from the
store, or whose process was ended to keep the number of live processes down, those blocks run again
first, in order, to rebuild the namespace it expects (their outputs were checked when they were stored).
"""

from __future__ import annotations

import io
import linecache
import multiprocessing.connection
import os
import re
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes import runner
from fieldnotes.cache import Store, code_digest
from fieldnotes.runner import Run, SnippetTimeout

_CODE = code_digest(__file__)


@dataclass(frozen=True)
class Block:
    """One executed block, as it runs."""

    code: str
    """What runs: the fence's code with its includes expanded (and a pycon block's prompts removed)."""
    name: str
    """How its traceback and its timeout name it: `<docs/page.md: block greet>`. Part of its key, so it
    holds nothing that changes when the page changes elsewhere (no line number)."""
    timeout: float
    workdir: str | None = None
    """markdown-exec's `workdir=`: the folder it runs in, relative to the project root."""
    width: int | None = None
    """markdown-exec's `width=`: the COLUMNS it runs with."""


class SessionEnded(Exception):
    """A block of the session timed out before this one, which ended the session's process."""


class SessionProcess:
    """One process forked from the fork server, holding one namespace: it runs the blocks it is given, in
    order, each under its own time limit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._conn, child = runner._server.Pipe(duplex=True)
        self._process = runner._server.Process(target=_session_child, args=(str(root), child))
        with runner._reaping:
            self._process.start()
        child.close()

    @property
    def alive(self) -> bool:
        return self._process.exitcode is None

    def run(self, block: Block) -> Run:
        """The block's run in this process's namespace; or SnippetTimeout, after which the process is gone."""
        capture = self._capture()
        try:
            self._conn.send((block.code, block.name, capture, block.workdir, block.width))
            exit_code = self._wait(block)
            if exit_code is None:
                self.close()
                raise SnippetTimeout(block.name, block.timeout, _read(capture))
            output = _read(capture)
            if exit_code < 0:
                output += f"[process killed by signal {-exit_code}]\n"
            return Run(output=output, exit_code=exit_code)
        finally:
            os.unlink(capture)

    @staticmethod
    def _capture() -> str:
        fd, path = tempfile.mkstemp(prefix="block-output-")
        os.close(fd)
        return path

    def _wait(self, block: Block) -> int | None:
        """The block's exit code, or None if it did not finish within its limit (from its own start)."""
        for limit in (runner.START_LIMIT, block.timeout):  # "started", then "done"
            ready = multiprocessing.connection.wait([self._conn, self._process.sentinel], limit)
            if not ready:
                return None
            try:
                message = self._conn.recv()
            except EOFError:
                return self._died()
            if message != "started":
                return message
        return None

    def _died(self) -> int:
        """The process ended inside a block (os._exit, a signal): that block's exit code (negative: the signal)."""
        with runner._reaping:
            self._process.join()
        return self._process.exitcode

    def close(self) -> None:
        if self.alive:
            with runner._reaping:
                self._process.kill()
                self._process.join()
        self._conn.close()


def _read(path: str) -> str:
    return Path(path).read_bytes().decode(errors="replace")


def _session_child(root: str, conn) -> None:
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    names: set[str] = set()
    sys.path.insert(0, root)  # the project's modules import as under `python -m mkdocs` in root
    while True:
        try:
            code, name, capture, workdir, width = conn.recv()
        except EOFError:  # the parent is gone
            os._exit(0)
        os.chdir(Path(root, workdir or ""))
        if width:
            os.environ["COLUMNS"] = str(width)
        else:
            os.environ.pop("COLUMNS", None)
        names.add(name)
        linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)  # tracebacks show lines
        capture_fd = os.open(capture, os.O_WRONLY | os.O_APPEND)
        for fd in (1, 2):
            os.dup2(capture_fd, fd)
        os.close(capture_fd)
        stream = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
        sys.stdout = sys.stderr = stream
        conn.send("started")
        exit_code = 0
        try:
            exec(compile(code, name, "exec"), namespace)
        except SystemExit as stop:  # the block ends as a script would, its session goes on
            if stop.code is not None and not isinstance(stop.code, int):
                print(stop.code, file=stream)
            exit_code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException:  # noqa: BLE001 - reported the way the interpreter reports it
            stream.write(_own_frames(traceback.format_exc(), names))
            exit_code = 1
        stream.flush()
        conn.send(exit_code)


_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line \d+')


def _own_frames(text: str, names: set[str]) -> str:
    """The traceback's frames in the session's blocks, and the exception; not the libraries' frames,
    whose paths differ between machines."""
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        frame = _FRAME.match(line)
        if frame:
            skipping = frame["file"] not in names
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "".join(kept)


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
