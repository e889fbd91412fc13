"""How an example runs (fieldnotes/runner.py): what the forked child captures and returns, and the time
limit. The children's own code (`_child`, `_call_child`, `_module_child`) is also run here in the test's
process, with what would end or leak out of it (`os._exit`, the streams, the folder, `os.setsid`, the
exit handlers) held by the test: a mutant in code that runs only in a forked child is otherwise out of
sight of a mutation run, which sees what the test's own process calls (issue 33)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fieldnotes import runner
from fieldnotes.runner import Run, SnippetTimeout


class Exited(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "snippets" / "a").mkdir(parents=True)
    return tmp_path


def snippet(project: Path, code: str, name: str = "snippets/a/x.py") -> str:
    (project / name).write_text(code)
    return name


@pytest.fixture
def in_process(monkeypatch, tmp_path):
    """Run a child's function here: its exit, streams, folder, argv, path and environment are put back."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(os, "environ", dict(os.environ))

    def exit_(code):
        raise Exited(code)

    monkeypatch.setattr(os, "_exit", exit_)
    saved = [os.dup(1), os.dup(2)]
    yield
    for fd, copy in zip((1, 2), saved, strict=True):
        os.dup2(copy, fd)
        os.close(copy)


def child(
    project: Path, name: str, then: str | None = None, before: str | None = None
) -> tuple[int, str, bytes, list[str]]:
    """`_child` run here: its exit code, what it captured, what it signalled, and sys.argv it set."""
    capture = project / "capture.txt"
    capture.write_bytes(b"")
    started, starting = multiprocessing.Pipe(duplex=False)
    with pytest.raises(Exited) as exited:
        runner._child(str(project), name, str(capture), then, starting, before)
    argv = list(sys.argv)
    signal_sent = started.recv_bytes() if started.poll() else b"none"
    return exited.value.code, capture.read_text(), signal_sent, argv


def test_the_child_captures_prints_and_warnings_in_order(in_process, project):
    """Catches a capture that loses stderr, reorders it against stdout (a buffered stream), runs the
    snippet elsewhere than the project's root, or without its folder on sys.path or its name as argv."""
    (project / "snippets" / "a" / "_helper.py").write_text("NAME = 'helper'\n")
    code = (
        "import os, sys\nfrom _helper import NAME\nprint('one', NAME)\n"
        "os.write(2, b'two\\n')\nprint('three', file=sys.stderr)\nos.write(1, b'four\\n')\n"
        "print(sys.argv[0], os.path.exists('snippets/a/x.py'))\n"
    )
    code, output, signalled, argv = child(project, snippet(project, code))
    assert (code, signalled, argv) == (0, b"", ["snippets/a/x.py"])
    assert output == "one helper\ntwo\nthree\nfour\nsnippets/a/x.py True\n"
    assert str(project / "snippets" / "a") == sys.path[0]


def test_the_child_runs_then_in_the_snippets_namespace(in_process, project):
    """Catches `then` code run without the snippet's names, or not run; a snippet not run as `__main__`
    (its `if __name__ == "__main__":` part would be skipped); `then` code named otherwise than `<then>` in
    its warnings and tracebacks."""
    then = "import sys\nprint(x + 1, sys._getframe().f_code.co_filename)"
    code, output, _, _ = child(project, snippet(project, "x = 41\nprint(__name__)\n"), then=then)
    assert (code, output) == (0, "__main__\n42 <then>\n")


def test_the_child_runs_before_first_in_a_namespace_of_its_own(in_process, project):
    """`before` (the steps' recording: torch's hooks installed before the snippet runs) runs in the
    snippet's process, first, with the snippet's folder importable, in a namespace of its own, named
    `<before>`. Catches it not run, run after the snippet, its names leaking into the snippet's or the
    runner's globals, or another name in its tracebacks."""
    (project / "snippets" / "a" / "_helper.py").write_text("NAME = 'helper'\n")
    before = (
        "import sys, builtins\nfrom _helper import NAME\nbuiltins.seen = []\nhidden = 1\n"
        "print('before', NAME, sys._getframe().f_code.co_filename)\n"
    )
    code = "seen.append(1)\nprint('snippet', 'hidden' in globals(), seen)\n"
    exit_code, output, _, _ = child(project, snippet(project, code), before=before)
    import builtins

    del builtins.seen
    assert (exit_code, output) == (0, "before helper <before>\nsnippet False [1]\n")
    assert not hasattr(runner, "hidden")


EXITS = ["import sys\nsys.exit('bye')\n", "import sys\nsys.exit(3)\n", "import sys\nsys.exit(None)\n", "pass\n"]


@pytest.mark.parametrize("code", EXITS)
def test_the_child_exits_as_python_would(in_process, project, code):
    """Catches an exit code or a printed message that differs from a real `python x.py`'s (the oracle):
    `sys.exit("bye")` prints bye to stderr and exits 1, `sys.exit(3)` exits 3, `sys.exit(None)` 0. The
    child runs here, where a mutation run sees it (test_runner.py runs it forked, as a build does)."""
    name = snippet(project, code)
    python = subprocess.run(
        [sys.executable, name], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    exit_code, output, _, _ = child(project, name)
    assert (exit_code, output) == (python.returncode, python.stdout)


def test_a_raising_snippet_shows_only_its_own_frames(in_process, project):
    """Catches a traceback that keeps frames outside the snippet (paths of this machine), or exit code 0."""
    code = "import json\n\nprint('before')\njson.loads('{')\n"
    exit_code, output, _, _ = child(project, snippet(project, code))
    assert exit_code == 1
    assert output.startswith(
        'before\nTraceback (most recent call last):\n  File "snippets/a/x.py", line 4, in <module>\n'
        "    json.loads('{')\n"
    )
    assert output.endswith(
        "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n"
    )
    assert "json/decoder.py" not in output and "runpy" not in output


def test_only_own_frames_keeps_the_snippets_frames_and_the_exception():
    """Catches torch's frames kept (absolute paths), the snippet's dropped, or a frame's code line left
    behind when its frame is dropped."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "snippets/x.py", line 3, in <module>\n'
        "    f()\n"
        '  File "/site-packages/torch/a.py", line 9, in f\n'
        "    raise RuntimeError('no')\n"
        "      ^^^^\n"
        '  File "snippets/x.py", line 1, in g\n'
        "    g()\n"
        "RuntimeError: no\n"
        "    indented detail\n"
    )
    assert runner.only_own_frames(text, "snippets/x.py") == (
        "Traceback (most recent call last):\n"
        '  File "snippets/x.py", line 3, in <module>\n'
        "    f()\n"
        '  File "snippets/x.py", line 1, in g\n'
        "    g()\n"
        "RuntimeError: no\n"
        "    indented detail\n"
    )


def test_the_call_child_hands_back_the_answer_or_the_traceback(in_process):
    """Catches a function's answer or its failure lost on the way to the parent."""
    receiving, sending = multiprocessing.Pipe(duplex=False)
    runner._call_child(divmod, (7, 2), sending)
    assert receiving.recv() == (True, (3, 1))
    receiving, sending = multiprocessing.Pipe(duplex=False)
    runner._call_child(divmod, (7, 0), sending)
    ok, text = receiving.recv()
    assert not ok and text.startswith("Traceback (most recent call last):") and "ZeroDivisionError" in text


@pytest.fixture
def module_child(in_process, monkeypatch, project):
    """`_module_child` run here; what it set up and which exit handlers it ran."""
    seen = {"setsid": 0, "exit handlers": 0}
    monkeypatch.setattr(os, "setsid", lambda: seen.update(setsid=seen["setsid"] + 1))
    import atexit

    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: seen.update({"exit handlers": 1}))
    monkeypatch.syspath_prepend(str(project))
    (project / "sub").mkdir()

    def run(code: str, env: dict) -> int:
        (project / "fieldnotes_probe_module.py").write_text(code)
        sys.modules.pop("fieldnotes_probe_module", None)
        with pytest.raises(Exited) as exited:
            runner._module_child("fieldnotes_probe_module", ["--flag"], env, str(project / "sub"))
        return exited.value.code

    return run, seen


def test_a_module_runs_as_python_m_would(module_child, project):
    """Catches a kernel started in the server's session, environment or folder, with another argv, or
    without its exit handlers run (the kernel's connection file would stay)."""
    run, seen = module_child
    code = (
        "import os, sys\n"
        "if __name__ == '__main__':\n"
        "    open('seen.txt', 'w').write(repr((sys.argv, os.environ.get('A'), 'HOME' in os.environ,"
        " os.environ.get('JPY_PARENT_PID'))))\n"
    )
    argv = [str(project / "fieldnotes_probe_module.py"), "--flag"]  # argv[0] the module's file, as `python -m`
    assert run(code, {"A": "1", "JPY_PARENT_PID": "1"}) == 0
    assert (project / "sub" / "seen.txt").read_text() == repr((argv, "1", False, str(os.getppid())))
    assert seen == {"setsid": 1, "exit handlers": 1}
    assert run(code, {"A": "2"}) == 0
    assert (project / "sub" / "seen.txt").read_text() == repr((argv, "2", False, None))


@pytest.mark.parametrize(
    ("code", "exit_code", "printed"),
    [
        ("raise SystemExit(4)\n", 4, ""),
        ("raise SystemExit('no')\n", 1, "no\n"),
        ("raise SystemExit\n", 0, ""),
        ("1 / 0\n", 1, "ZeroDivisionError: division by zero\n"),
    ],
)
def test_a_module_exits_as_python_m_would(module_child, capfd, code, exit_code, printed):
    """Catches a kernel's exit code, or its last words on stderr, that differ from `python -m`'s."""
    run, seen = module_child
    assert run(code, {}) == exit_code
    assert seen["exit handlers"] == 1
    assert capfd.readouterr().err.endswith(printed)


def test_a_run_returns_what_the_snippet_printed_and_its_exit_code(project):
    """Catches a run that loses its output or exit code between the child and the caller."""
    name = snippet(project, "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(2)\n")
    assert runner.run_snippet(project, name, 60) == Run("out\nerr\n", 2)
    assert runner.run_snippet(project, snippet(project, "print(x)\n", "snippets/a/y.py"), 60, then=None).exit_code == 1
    assert runner.run_snippet(project, name, 60, then="print('then')") == Run("out\nerr\n", 2)
    ok = snippet(project, "x = 1\n", "snippets/a/z.py")
    assert runner.run_snippet(project, ok, 60, then="print('then', x)") == Run("then 1\n", 0)


def test_bytes_that_are_not_utf_8_are_shown_replaced(project):
    """Catches a run that fails on output that is not UTF-8 (a C extension's raw bytes) instead of
    showing it."""
    name = snippet(project, "import os\nos.write(1, b'ok \\xff\\n')\n")
    assert runner.run_snippet(project, name, 60) == Run("ok \ufffd\n", 0)


def test_a_child_that_ends_before_its_snippet_starts_is_a_run_not_a_timeout(tmp_path):
    """Catches a child that died before starting its snippet (here: its folder is gone) reported as
    having run out of time."""
    assert runner.run_snippet(tmp_path / "gone", "snippets/x.py", 60) == Run("", 1)


def test_a_snippet_killed_by_a_signal_says_so(project):
    """Catches a run killed by a signal that looks like one that ended normally."""
    name = snippet(project, "import os\nprint('before', flush=True)\nos.kill(os.getpid(), 9)\n")
    assert runner.run_snippet(project, name, 60) == Run("before\n[process killed by signal 9]\n", -9)


def test_a_snippet_that_runs_too_long_is_stopped_with_what_it_printed(project):
    """Catches a time limit that is not applied, a snippet waited for instead of killed, or a timeout
    that loses what the snippet printed."""
    # Not longer: a mutant that hangs this test leaves the snippet's process behind until it ends.
    code = "import time\nprint('started', flush=True)\ntime.sleep(30)\nopen('ended', 'w').close()\n"
    with pytest.raises(SnippetTimeout) as stopped:
        runner.run_snippet(project, snippet(project, code), 0.5)
    assert str(stopped.value) == "snippets/a/x.py did not finish within 0.5 s and was killed"
    assert stopped.value.partial_output == "started\n"
    assert not (project / "ended").exists()


def test_a_call_returns_the_answer_from_another_process():
    """Catches a call that answers from the caller's process, or loses a failure or a silent exit."""
    assert runner.call(os.getpid) != os.getpid()
    assert runner.call(divmod, 7, 2) == (3, 1)
    with pytest.raises(RuntimeError) as failed:
        runner.call(divmod, 7, 0)
    assert str(failed.value).startswith("divmod failed in its forked process:\nTraceback (most recent call last):")
    silent = "^_exit failed in its forked process:\nthe process ended without an answer$"
    with pytest.raises(RuntimeError, match=silent):
        runner.call(os._exit, 0)


def test_a_started_module_is_a_process_to_wait_for_and_signal(project):
    """Catches a kernel process whose exit code, wait or signals do not reach the forked process."""
    quick = runner.start_module("this", [], dict(os.environ), str(project))
    assert quick.wait(60) == 0 and quick.returncode == 0 and quick.poll() == 0
    # Not longer: a mutant that hangs this test leaves the module's process behind until it ends.
    sleep = ["-n", "1", "-r", "1", "import time; time.sleep(30)"]
    for stop, code in [("terminate", -signal.SIGTERM), ("kill", -signal.SIGKILL)]:
        slow = runner.start_module("timeit", sleep, dict(os.environ), str(project))
        assert slow.pid > 0 and slow.poll() is None and slow.wait(0.01) is None
        getattr(slow, stop)()
        assert slow.wait(60) == code


def test_the_fork_server_imports_the_main_module_torch_and_the_runner_first():
    """Catches a fork server that would not import the main module once for every child (each child would
    import it again, `python -m fieldnotes.record` included), or not preload what it is given."""
    from multiprocessing import forkserver

    runner.start_server(("colorsys",))
    assert forkserver._forkserver._preload_modules == ["__main__", "colorsys", "fieldnotes.runner"]
    assert forkserver._forkserver._forkserver_pid is not None
