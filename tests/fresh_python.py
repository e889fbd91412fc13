"""`python -u script` as the tests' reader runs it, without paying for `import torch` once per script.

The product's runner (fieldnotes.runner) does the same thing for the build; it is the code under test,
so the tests that check what a reader sees use this harness of their own, checked against real
interpreters by tests/test_fresh_python.py.

One server per test process: a fresh `python -u` that imports torch and torch._dynamo (which every
optimizer's first step imports; for notebooks, IPython too) and nothing else, then forks a child per
script. The child makes itself the interpreter a fresh `python -u script` would be (a new `__main__`,
argv, sys.path[0], fds 1 and 2 on one pipe, the interpreter's own exception and SystemExit handling
and exit sequence), so what it prints and its exit code are those of a fresh run. Where the preload
could change that, the script runs in a real fresh interpreter instead (FreshPython.why_fresh).
"""

from __future__ import annotations

import ast
import atexit
import base64
import builtins
import io
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from importlib.machinery import SourceFileLoader
from pathlib import Path

# The server's own start: the first script waits for the preload's import, which can be slow on a
# loaded machine; it is not the script's time.
START_TIMEOUT = 600.0


@dataclass(frozen=True)
class Ran:
    output: bytes
    """What the script wrote to fds 1 and 2, in order, as a pipe got it."""
    returncode: int
    via: str
    """"forked", or why it ran in a fresh interpreter ("fresh: ...")."""

    @property
    def text(self) -> str:
        """The output decoded as `subprocess.run(..., text=True)` decodes it (universal newlines)."""
        return io.TextIOWrapper(io.BytesIO(self.output)).read()


def run_fresh(script: str, cwd: Path, timeout: float, why: str = "fresh") -> Ran:
    """A real `python -u script`: stdout and stderr on one pipe, no stdin."""
    done = subprocess.run(
        [sys.executable, "-u", script],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )
    return Ran(done.stdout, done.returncode, why)


# --------------------------------------------------------------------------------------------------
# When the preload could show: a script that changes what `import torch` does (an environment
# variable, a flag, a warning filter set first) gets a preload made without it.


def _imports(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Import):
        return [alias.name.split(".")[0] for alias in statement.names]
    if isinstance(statement, ast.ImportFrom):
        return [] if statement.level else [(statement.module or "").split(".")[0]]
    return []


def _before_preload(
    tree: ast.Module, where: str, preload: tuple[str, ...], module: Callable[[str], tuple[ast.Module, str] | None]
) -> tuple[bool, str | None]:
    """Whether `tree` imports a preloaded module, and what else it does first (anything but a docstring,
    `from __future__` and imports; `module(name)` gives a helper it imports first, read the same way)."""
    for index, statement in enumerate(tree.body):
        if index == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            return False, f"{where}:{statement.lineno}: a {type(statement).__name__} before importing {preload[0]}"
        names = _imports(statement)
        if set(names) & set(preload):
            return True, None
        for name in names:
            helper = module(name)
            if helper is not None:
                found, problem = _before_preload(*helper, preload, module)
                if found or problem:
                    return found, problem
    return False, None


def _parse(source: str | bytes, where: str) -> ast.Module | None:
    try:
        return ast.parse(source, where)
    except SyntaxError:
        return None  # it raises before it runs anything, preload or not


def before_preload(path: Path, preload: tuple[str, ...]) -> str | None:
    """What the script does before it first imports a preloaded module, if anything but a docstring,
    `from __future__` and imports (helpers beside it that it imports first included); or None."""
    seen: set[str] = set()

    def helper(name: str) -> tuple[ast.Module, str] | None:
        file = path.parent / f"{name}.py"
        if name in seen or not file.is_file():
            return None
        seen.add(name)
        tree = _parse(file.read_bytes(), str(file))
        return None if tree is None else (tree, file.name)

    tree = _parse(path.read_bytes(), str(path))
    return None if tree is None else _before_preload(tree, path.name, preload, helper)[1]


def cells_before_preload(sources: list[str], preload: tuple[str, ...]) -> str | None:
    """The same for a notebook's code cells, run in order: `%%writefile NAME.py` cells write the helpers
    the others import; a cell that is not Python (another magic) counts as doing something."""
    written, seen = {}, set()
    for source in sources:
        first, _, body = source.partition("\n")
        if first.startswith("%%writefile ") and first.split()[-1].endswith(".py"):
            written[first.split()[-1].removesuffix(".py")] = body

    def helper(name: str) -> tuple[ast.Module, str] | None:
        if name in seen or name not in written:
            return None
        seen.add(name)
        tree = _parse(written[name], f"{name}.py")
        return None if tree is None else (tree, f"{name}.py")

    for number, source in enumerate(sources, 1):
        if source.startswith("%%writefile "):
            continue
        tree = _parse(source, f"cell {number}")
        if tree is None:
            return f"cell {number} is not plain Python"
        found, problem = _before_preload(tree, f"cell {number}", preload, helper)
        if found or problem:
            return problem
    return None


# --------------------------------------------------------------------------------------------------
# The client


class FreshPython:
    """A server per test process, started at its first use, that forks a fresh-looking interpreter
    per script (`run`) or notebook (`run_cells`)."""

    def __init__(self, preload: tuple[str, ...] = ("torch",)) -> None:
        self.preload = preload
        self._process: subprocess.Popen | None = None
        self._requests = self._answers = -1
        self._env: dict[str, str] = {}
        self._modules: set[str] = set()
        self.unusable: str | None = None
        """Why the server must not be used (its preload printed something), once known."""
        atexit.register(self.stop)

    def start(self) -> None:
        if self._process is not None:
            return
        requests_read, self._requests = os.pipe()
        self._answers, answers_write = os.pipe()
        self._env = _startup_env()
        # stdout and stderr on one pipe, as a fresh run has them (the children inherit the server's
        # sys.stdout and sys.stderr); what the preload prints stays in it, and must be nothing.
        self._process = subprocess.Popen(
            [sys.executable, "-u", __file__, str(requests_read), str(answers_write), *self.preload],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(requests_read, answers_write),
        )
        os.close(requests_read)
        os.close(answers_write)

    def stop(self) -> None:
        """Stop the server, and forget what its start found out: the next use starts another."""
        self._modules, self.unusable = set(), None
        if self._process is None:
            return
        os.close(self._requests)  # the server stops at the end of its requests
        os.close(self._answers)
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()
        self._process = None

    def _ready(self) -> bool:
        """Whether the server can be used: started (again, if os.environ changed since), and its preload
        printed nothing."""
        if self._process is not None and _startup_env() != self._env:
            # A library changed os.environ since the start (mkdocs-material sets NO_MKDOCS_2_WARNING on
            # import): a fresh run would import torch under the new environment, so the server does too.
            self.stop()
        if self.unusable is not None:
            return False
        if not self._modules:
            self.start()
            ready = self._receive(START_TIMEOUT)
            printed = self._server_output()
            if printed:
                self.unusable = f"importing {', '.join(self.preload)} printed {printed[:200]!r}"
                return False
            self._modules = set(ready["modules"])
        return True

    def why_fresh(self, script: str | Path, cwd: Path) -> str | None:
        """Why `script` (relative to `cwd`) must run in a fresh interpreter, not a fork; or None."""
        path = Path(cwd, script)
        if not self._ready():
            return self.unusable
        shadows = sorted(
            name for name in self._modules if (path.parent / f"{name}.py").exists() or (path.parent / name).is_dir()
        )
        if shadows:  # a fresh interpreter would import these from the script's folder, not from the preload
            return f"{path.parent} has modules the preload imported: {shadows}"
        return before_preload(path, self.preload)

    def why_fresh_cells(self, sources: list[str]) -> str | None:
        """Why a notebook of these code cells must run in a real kernel, not a fork; or None."""
        if not self._ready():
            return self.unusable
        written = {source.split("\n")[0].split()[-1] for source in sources if source.startswith("%%writefile ")}
        shadows = sorted(name for name in self._modules if f"{name}.py" in written)
        if shadows:
            return f"the notebook writes modules the preload imported: {shadows}"
        return cells_before_preload(sources, self.preload)

    def run(self, script: str, cwd: Path, timeout: float, *, check_preload: bool = True) -> Ran:
        """What `python -u script`, started in `cwd` with stdout and stderr on one pipe, prints and exits with.
        Raises subprocess.TimeoutExpired after `timeout` s, as subprocess.run does. `check_preload=False`
        forks even a script that imports no preloaded module (the harness's self-test)."""
        why = self.why_fresh(script, cwd) if check_preload else (None if self._ready() else self.unusable)
        if why:
            return run_fresh(script, cwd, timeout, f"fresh: {why}")
        answer = self._ask({"kind": "script", "script": script, "cwd": str(cwd), "timeout": timeout})
        return Ran(answer["output"], answer["returncode"], "forked")

    def run_cells(self, cells: list[tuple[str, bool]], folder: Path, timeout: float) -> tuple[list[dict], Ran]:
        """The code cells (source, may raise) of a notebook run in order in one IPython shell in `folder`,
        stopping after the first cell that raises and may not, as nbclient does. Each cell run gives
        {"raised": bool, "error": its exception, or None}."""
        if not self._ready():
            raise RuntimeError(f"the server cannot be used: {self.unusable}")
        answer = self._ask({"kind": "cells", "cells": cells, "cwd": str(folder), "timeout": timeout})
        return answer["results"], Ran(answer["output"], answer["returncode"], "forked")

    def _ask(self, request: dict) -> dict:
        request = {**request, "env": dict(os.environ)}
        os.write(self._requests, json.dumps(request).encode() + b"\n")
        answer = self._receive(request["timeout"] + 60)
        output = base64.b64decode(answer["output"])
        if answer["timed_out"]:
            raise subprocess.TimeoutExpired(request.get("script", "cells"), request["timeout"], output)
        return {**answer, "output": output}

    def _receive(self, timeout: float) -> dict:
        line = _read_line(self._answers, time.monotonic() + timeout)
        if not line:
            raise RuntimeError(f"the fresh-python server ended or hung: {self._server_output()[-2000:]!r}")
        return json.loads(line)

    def _server_output(self) -> bytes:
        """What the server itself has written so far (it writes nothing while it works)."""
        output = b""
        while select.select([self._process.stdout], [], [], 0)[0]:
            chunk = os.read(self._process.stdout.fileno(), 65536)
            if not chunk:
                break
            output += chunk
        return output


def _startup_env() -> dict[str, str]:
    """The environment but for what pytest changes per test: the server's start saw the rest, and a
    child gets the variables as they are at its run."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}


def _read_line(fd: int, deadline: float) -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        wait = None if deadline == float("inf") else max(0.0, deadline - time.monotonic())
        if not select.select([fd], [], [], wait)[0]:
            return b""
        chunk = os.read(fd, 1)
        if not chunk:
            return b""
        line += chunk
    return line


# --------------------------------------------------------------------------------------------------
# The server and its children (this file run as a script: nothing of the tests is imported)


def _serve(requests: int, answers: int, preload: list[str]) -> None:
    # A fresh `python script` has the script's folder first on its path, not this file's; the child
    # puts it there. The preload is imported with neither.
    del sys.path[0]
    for name in preload:
        __import__(name)
    modules = sorted({name.split(".")[0] for name in sys.modules})
    os.write(answers, json.dumps({"modules": modules}).encode() + b"\n")
    while line := _read_line(requests, float("inf")):
        request = json.loads(line)
        answer = _fork(request, requests, answers)
        os.write(answers, json.dumps(answer).encode() + b"\n")


def _fork(request: dict, requests: int, answers: int) -> dict:
    reading, writing = os.pipe()
    results_fd, results_path = tempfile.mkstemp(prefix="fresh-python-cells-")
    pid = os.fork()
    if pid == 0:  # the child: it never returns
        code = 70
        try:
            for fd in (reading, requests, answers):
                os.close(fd)
            os.dup2(writing, 1)
            os.dup2(writing, 2)
            os.close(writing)
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            if request["kind"] == "script":
                os.close(results_fd)
                code = _run_script(request["script"])
            else:
                code = _run_cells(request["cells"], results_fd)
        except BaseException:  # noqa: BLE001 - the harness failed, not the script: say so in its output
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(writing)
    os.close(results_fd)
    output, timed_out = bytearray(), False
    deadline = time.monotonic() + request["timeout"]
    while True:
        if not select.select([reading], [], [], max(0.0, deadline - time.monotonic()))[0]:
            os.kill(pid, signal.SIGKILL)
            timed_out = True
            break
        chunk = os.read(reading, 65536)
        if not chunk:
            break
        output += chunk
    os.close(reading)
    _, status = os.waitpid(pid, 0)
    results = Path(results_path).read_text() or "[]"
    os.unlink(results_path)
    return {
        "output": base64.b64encode(bytes(output)).decode(),
        "returncode": os.waitstatus_to_exitcode(status),
        "timed_out": timed_out,
        "results": json.loads(results),
    }


def _exit_code(stop: SystemExit) -> int:
    """What the interpreter exits with on an uncaught SystemExit (and what it prints for a message)."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    sys.stderr.write(f"{stop.code}\n")
    return 1


def _run_script(script: str) -> int:
    """Run `script` in this process as `python -u script` runs it, and return its exit code."""
    path = os.path.abspath(script)
    sys.argv = [script]
    sys.orig_argv = [sys.orig_argv[0], "-u", script]
    sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=path,
        __cached__=None,
        __builtins__=builtins,
        __loader__=SourceFileLoader("__main__", path),
        __spec__=None,
        __package__=None,
        __annotations__={},
    )
    sys.modules["__main__"] = main
    code = 0
    try:
        with open(path, "rb") as file:
            source = file.read()
        exec(compile(source, path, "exec"), main.__dict__)
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException as error:  # noqa: BLE001 - reported as the interpreter reports it
        code = _report(error)
    return _finalize(code)


def _report(error: BaseException) -> int:
    """Print an uncaught exception as the interpreter does, without this file's frame."""
    tb = error.__traceback__
    error.__traceback__ = tb.tb_next if tb is not None and tb.tb_frame.f_code.co_filename == __file__ else tb
    sys.last_type, sys.last_value, sys.last_traceback = type(error), error, error.__traceback__
    sys.excepthook(type(error), error, error.__traceback__)
    if isinstance(error, KeyboardInterrupt):  # the interpreter ends itself by the signal
        sys.stdout.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return 1


def _finalize(code: int) -> int:
    """The interpreter's exit: wait for non-daemon threads, run atexit, flush the streams."""
    import threading

    threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - a closed stream, as the interpreter ignores it
            pass
    return code


def _run_cells(cells: list[list], results_fd: int) -> int:
    """The cells in one IPython shell, as a kernel started by nbclient in this folder runs them."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    sys.argv = [""]
    sys.path.insert(0, os.getcwd())  # the kernel is `python -m ipykernel_launcher`, started here
    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # the runs of two workers at once share no history file
    shell = InteractiveShell.instance(config=config)
    results = []
    for source, may_raise in cells:
        result = shell.run_cell(source, store_history=True)
        error = result.error_before_exec or result.error_in_exec
        results.append({"raised": error is not None, "error": None if error is None else repr(error)})
        if error is not None and not may_raise:
            break
    with os.fdopen(results_fd, "w") as file:
        json.dump(results, file)
    return _finalize(0)


# The servers of this test process: one for scripts, one for notebooks (IPython loaded would change
# what some libraries do in a script, as they look for it). torch._dynamo is torch's own, imported by
# every optimizer's first step and torch.compile: a preload spares each such script that import.
SCRIPTS = FreshPython(("torch", "torch._dynamo"))
NOTEBOOKS = FreshPython(("torch", "torch._dynamo", "IPython"))

if __name__ == "__main__":
    _serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])
