"""Run a snippet exactly as `python snippets/NAME.py` would, and capture what it prints.

Every run is a fresh process forked from a server that has imported torch and run nothing else: a
snippet's (`run_snippet`), a function's (`call`: the API index's questions to torch) or a module's run
as `python -m` would run it (`start_module`: the notebook's kernel).
So torch is imported once per build rather than once per example, and whatever a snippet does to
global state (grad mode, default dtype, RNG seeds, anomaly mode, thread count, global module
hooks) dies with its process instead of leaking into the next example.

The capture is at the file-descriptor level, stdout and stderr into one file, so the text is what a
terminal shows: prints, Python warnings (torch's non-leaf `.grad` warning among them), anything C++
writes, and a traceback if the snippet raises, in the order they happened.
"""

from __future__ import annotations

import atexit
import io
import multiprocessing
import multiprocessing.connection
import os
import re
import runpy
import signal
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path

# A child that has not started running its snippet by then is stuck (its start is importing, not
# running the example): it is killed and raised as a SnippetTimeout, as one that ran too long is.
START_LIMIT = 300.0

# How many examples run at once, in a build and in `record`: one per core (more only makes torch's
# threads fight over the cores: slower, measured on 2 cores).
JOBS = os.cpu_count() or 2

_server = multiprocessing.get_context("forkserver")


# Process.start() polls every other live child, and two threads polling one forkserver child can
# both read its exit status (one gets garbage). Starting and reaping under one lock avoids that;
# waiting, the long part, needs no lock.
_reaping = threading.Lock()


@dataclass(frozen=True)
class Run:
    output: str
    """stdout and stderr as one text, paths relative to the project root."""
    exit_code: int
    """0, or 1 when the snippet raised (as `python` exits)."""


class SnippetTimeout(Exception):
    """The snippet ran longer than allowed and was killed."""

    def __init__(self, snippet: str, timeout: float, partial_output: str) -> None:
        super().__init__(f"{snippet} did not finish within {timeout:g} s and was killed")
        self.partial_output = partial_output


def start_server(preload: tuple[str, ...] = ("torch",)) -> None:
    """Start the fork server, which imports `preload` in the background (once per process: the first
    call's list holds), so the first example does not wait for it."""
    from multiprocessing import forkserver

    # "__main__" first: the server imports the parent's main script once, so that each forked child
    # does not import it again (multiprocessing would otherwise re-run it per child).
    _server.set_forkserver_preload(["__main__", *preload, __name__])
    forkserver.ensure_running()


def run_snippet(
    root: Path, snippet: str, timeout: float, then: str | None = None, before: str | None = None
) -> Run:
    """Run `root/snippet` (a path relative to root, e.g. "snippets/leaves/seed.py") in isolation.

    `then`, if given, is Python code run afterwards in the snippet's namespace, in the same process
    (to inspect the tensors the snippet made, e.g. to draw their graph); its prints are captured too.
    `before`, if given, is Python code run in the same process just before the snippet, in a namespace
    of its own (to install what records the snippet's backward pass).
    The time limit counts from the moment the child starts running the snippet: not the wait for the
    fork server (its first import of torch), nor the child's own start (under `python -m`, multiprocessing
    imports the main module again in each child).
    """
    with tempfile.NamedTemporaryFile(prefix="snippet-output-") as capture:
        started, starting = _server.Pipe(duplex=False)
        process = _server.Process(target=_child, args=(str(root), snippet, capture.name, then, starting, before))
        with _reaping:
            process.start()
        starting.close()
        finished = _wait(process, started, timeout)
        with _reaping:
            if not finished:
                process.kill()
            process.join()
        started.close()
        if not finished:
            raise SnippetTimeout(snippet, timeout, _read(capture.name))
        output = _read(capture.name)
    if process.exitcode < 0:
        output += f"[process killed by signal {-process.exitcode}]\n"
    return Run(output=output, exit_code=process.exitcode)


def _wait(process, started, timeout: float) -> bool:
    """Whether the process ended within `timeout` of starting its snippet (or before it started)."""
    ready = multiprocessing.connection.wait([started, process.sentinel], START_LIMIT)
    if process.sentinel in ready or not ready:
        return bool(ready)
    return bool(multiprocessing.connection.wait([process.sentinel], timeout))


def _read(path: str) -> str:
    return Path(path).read_bytes().decode(errors="replace")


def _child(root: str, snippet: str, capture_path: str, then: str | None, starting, before: str | None = None) -> None:
    os.chdir(root)
    capture_fd = os.open(capture_path, os.O_WRONLY | os.O_APPEND)
    for fd in (1, 2):
        os.dup2(capture_fd, fd)
    # One unbuffered stream for both, so prints and warnings keep their order.
    stream = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stdout = sys.stderr = stream
    sys.path.insert(0, str(Path(root, snippet).parent))
    sys.argv = [snippet]
    starting.send_bytes(b"")  # the time limit starts now
    starting.close()
    try:
        if before:
            exec(compile(before, "<before>", "exec"), {})
        namespace = runpy.run_path(snippet, run_name="__main__")
        if then:
            exec(compile(then, "<then>", "exec"), namespace)
    except SystemExit as stop:
        os._exit(exit_code(stop))
    except BaseException:  # noqa: BLE001 - reported the way the interpreter reports it
        stream.write(only_own_frames("".join(traceback.format_exc()), snippet))
        os._exit(1)
    os._exit(0)


def exit_code(stop: SystemExit) -> int:
    """What the interpreter exits with on an uncaught SystemExit: 0 for None, the number, or 1 for
    anything else, which it prints to stderr first (`sys.exit("message")`)."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    print(stop.code, file=sys.stderr)
    return 1


def call(function, *args):
    """`function(*args)` in a process forked from the server: what it returns (pickled back), or a
    RuntimeError with the child's traceback. `function` must be importable by name."""
    receiving, sending = _server.Pipe(duplex=False)
    process = _server.Process(target=_call_child, args=(function, args, sending))
    with _reaping:
        process.start()
    sending.close()
    try:
        ok, result = receiving.recv()
    except EOFError:
        ok, result = False, "the process ended without an answer"
    with _reaping:
        process.join()
    receiving.close()
    if not ok:
        raise RuntimeError(f"{function.__qualname__} failed in its forked process:\n{result}")
    return result


def _call_child(function, args, sending) -> None:
    try:
        answer = (True, function(*args))
    except BaseException:  # noqa: BLE001 - handed to the parent, which raises it
        answer = (False, traceback.format_exc())
    sending.send(answer)
    sending.close()


class Forked:
    """A process forked from the server, with the part of `subprocess.Popen`'s interface a process's
    owner uses (`pid`, `poll`, `wait`, `send_signal`, `terminate`, `kill`; no pipes)."""

    stdin = stdout = stderr = None

    def __init__(self, process) -> None:
        self._process = process
        self.pid = process.pid

    @property
    def returncode(self) -> int | None:
        return self.poll()

    def poll(self) -> int | None:
        with _reaping:
            return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int | None:
        multiprocessing.connection.wait([self._process.sentinel], timeout)
        code = self.poll()
        if code is not None:
            with _reaping:
                self._process.join()
        return code

    def send_signal(self, signum: int) -> None:
        os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def start_module(module: str, args: list[str], env: dict[str, str], cwd: str) -> Forked:
    """Start `python -m module *args` with environment `env` in folder `cwd`, as a fork of the server
    (so torch is imported already), in a session of its own as `subprocess.Popen(start_new_session=True)`
    starts one; its standard streams are the server's (the build's)."""
    process = _server.Process(target=_module_child, args=(module, args, env, cwd))
    with _reaping:
        process.start()
    return Forked(process)


def _module_child(module: str, args: list[str], env: dict[str, str], cwd: str) -> None:
    os.setsid()
    env = dict(env)
    if "JPY_PARENT_PID" in env:  # a kernel exits once its parent is gone: its parent is the server
        env["JPY_PARENT_PID"] = str(os.getppid())
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = [module, *args]  # run_module sets argv[0] to the module's file, as `python -m` does
    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        code = exit_code(stop)
    except BaseException:  # noqa: BLE001 - reported the way the interpreter reports it
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # the module's exit handlers, as the interpreter's exit runs them
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line \d+')


def only_own_frames(text: str, snippet: str) -> str:
    """Drop traceback frames that are not in the snippet itself.

    torch's internal frames carry absolute paths into site-packages, which differ between machines
    and say nothing to the reader; the snippet's own frames and the exception line are kept verbatim.
    """
    kept = []
    skipping = False
    for line in text.splitlines(keepends=True):
        frame = _FRAME.match(line)
        if frame:
            skipping = frame["file"] != snippet
        elif not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "".join(kept)
