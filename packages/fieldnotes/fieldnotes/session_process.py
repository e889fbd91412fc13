"""One process forked from the runner's fork server (`fieldnotes.runner`) that holds one namespace and runs
the code blocks it is given in it, in order, each under its own time limit (from its own start) and with
its output captured on its own, at the file-descriptor level as the runner captures a snippet's: prints,
warnings, what C code writes and a traceback, in the order they happened. `fieldnotes.sessions` keeps
one per session.
"""

from __future__ import annotations

import io
import linecache
import multiprocessing.connection
import os
import re
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

from fieldnotes import runner
from fieldnotes.runner import Run, SnippetTimeout


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


class SessionProcess:
    """One process forked from the fork server, holding one namespace: it runs the blocks it is given, in
    order, each under its own time limit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._conn, child = runner._server.Pipe(duplex=True)
        # daemonic: ended with the build's process, whose exit would otherwise wait for it (multiprocessing joins
        # its other children at exit), as when a host stops on a drift with the sessions still open
        self._process = runner._server.Process(target=_session_child, args=(str(root), child), daemon=True)
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
