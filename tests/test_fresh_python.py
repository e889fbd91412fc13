"""The harness tests/fresh_python.py, which the reader tests run scripts and notebooks through, checked
against the real thing: a fresh `python -u` and a kernel started by nbclient."""

from __future__ import annotations

import textwrap

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from fieldnotes.render.page_notebook import RAISES_TAG
from tests.fresh_python import NOTEBOOKS, SCRIPTS, FreshPython, cells_before_preload, run_fresh

# Each one prints what a forked run could get wrong. Only the first two import torch: the others
# would show the same without it, and a fresh interpreter that imports torch costs seconds.
SCRIPTS_TO_COMPARE = {
    "torch_warning.py": """
        import torch

        a = torch.ones(2, requires_grad=True)
        b = a * 2
        print("before")
        print(b.grad)
        print("after")
    """,
    "torch_error.py": """
        import torch

        x = torch.ones(2, requires_grad=True)
        x.add_(1)
    """,
    "print.py": """
        print("hello")
    """,
    "warning.py": """
        import warnings

        print("one")
        warnings.warn("careful")
        print("two")
        warnings.warn("careful")
        warnings.warn("gone", DeprecationWarning)
    """,
    "interleaved.py": """
        import sys

        for n in range(3):
            print("out", n)
            print("err", n, file=sys.stderr)
    """,
    "fd2.py": """
        import os

        print("python")
        os.write(2, b"written to fd 2\\n")
        os.write(1, b"written to fd 1\\n")
        print("python again")
    """,
    "traceback.py": """
        def inner():
            raise ValueError("deep")


        def outer():
            try:
                inner()
            except ValueError as error:
                raise RuntimeError("wrapped") from error


        print("start")
        outer()
    """,
    "exit_3.py": """
        import sys

        print("leaving")
        sys.exit(3)
    """,
    "exit_message.py": """
        raise SystemExit("a message")
    """,
    "exit_none.py": """
        import sys

        sys.exit()
    """,
    "helper.py": """
        import _helper_beside

        print(_helper_beside.where())
    """,
    "names.py": '''
        """The docstring."""
        import sys

        print(__name__, __file__, __doc__, __package__, __spec__, __cached__)
        print(type(__loader__).__name__, __builtins__)
        print(sorted(globals()))
        print(sys.argv, sys.path[0], sys.orig_argv[1:], sys.modules["__main__"].__dict__ is globals())
        print(sys.stdout.isatty(), sys.stdout.line_buffering, sys.stdout.write_through, sys.stdout.encoding)
        print(sys.stderr.errors, type(sys.stdout.buffer).__name__, sys.stdin.read())
    ''',
    "syntax_error.py": """
        print("never")
        x = (
    """,
    "at_exit.py": """
        import atexit
        import threading
        import time

        atexit.register(print, "atexit")
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread"))).start()
        print("main")
    """,
    "interrupt.py": """
        raise KeyboardInterrupt
    """,
}
HELPER = """
def where():
    return __name__
"""


@pytest.mark.parametrize("name", SCRIPTS_TO_COMPARE)
def test_a_forked_run_prints_what_a_fresh_interpreter_prints(tmp_path, name):
    """The harness's oracle. Catches a fork that differs from `python -u script`: an output stream not
    on fd 1 or 2 or buffered (order lost, a C-level write missing), a traceback with the harness's frame,
    SystemExit or an exception's exit code not the interpreter's, the script's folder not first on the
    path, a `__main__` that is not a fresh one."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / name).write_text(textwrap.dedent(SCRIPTS_TO_COMPARE[name]).lstrip())
    (folder / "_helper_beside.py").write_text(HELPER)
    script = f"scripts/{name}"
    forked = SCRIPTS.run(script, tmp_path, timeout=60, check_preload=False)
    fresh = run_fresh(script, tmp_path, timeout=120)
    assert forked.via == "forked"
    assert (forked.output.decode(), forked.returncode) == (fresh.output.decode(), fresh.returncode)


def test_a_script_that_changes_what_importing_torch_does_runs_fresh(tmp_path):
    """Catches the guard missing: torch imported already would not see what the script sets first."""
    (tmp_path / "env.py").write_text('import os\nos.environ["X"] = "1"\nimport torch\nprint(os.environ["X"])\n')
    (tmp_path / "_sets.py").write_text('import os\nos.environ["X"] = "2"\n')
    (tmp_path / "helper_first.py").write_text("import _sets\nimport torch\nprint(1)\n")
    plain = '"""Doc."""\nfrom __future__ import annotations\nimport os\nimport torch\nprint(1)\n'
    (tmp_path / "plain.py").write_text(plain)
    assert "Assign before importing torch" in SCRIPTS.why_fresh("env.py", tmp_path)
    assert SCRIPTS.why_fresh("helper_first.py", tmp_path).startswith("_sets.py:2")
    assert SCRIPTS.why_fresh("plain.py", tmp_path) is None
    ran = SCRIPTS.run("env.py", tmp_path, timeout=120)
    assert ran.via.startswith("fresh: env.py:2") and (ran.text, ran.returncode) == ("1\n", 0)


def test_a_changed_environment_starts_the_server_again(tmp_path, monkeypatch):
    """Catches a server that keeps the environment of its start once a library or a test changes
    os.environ (mkdocs-material sets NO_MKDOCS_2_WARNING when imported): its preload (torch, for the
    reader's runs) would have been imported under the old one, and a fork would not be what a fresh run
    is. Nor may every later run go to a fresh interpreter, seconds each, for good. A server of its own,
    with a light preload: SCRIPTS would be started again twice, with torch, for this test alone."""
    server = FreshPython(("colorsys",))
    script = "import os\n\nimport colorsys\n\nprint(os.environ.get('FRESH_PYTHON_PROBE'), colorsys.__name__)\n"
    (tmp_path / "env_probe.py").write_text(script)
    try:
        assert server.run("env_probe.py", tmp_path, timeout=120).text == "None colorsys\n"
        started = server._process
        monkeypatch.setenv("FRESH_PYTHON_PROBE", "set")
        ran = server.run("env_probe.py", tmp_path, timeout=120)
        assert (ran.via, ran.text) == ("forked", "set colorsys\n")
        assert server._process is not started, "the server started under the old environment was kept"
    finally:
        server.stop()


def test_a_script_beside_a_module_the_preload_imported_runs_fresh(tmp_path):
    """Catches a fork of a script whose folder has a module that a fresh `import torch` would load
    from there instead (the preload imported it from site-packages)."""
    (tmp_path / "numpy.py").write_text("")
    (tmp_path / "x.py").write_text("import torch\n")
    assert "['numpy']" in SCRIPTS.why_fresh("x.py", tmp_path)


def test_a_preload_that_prints_leaves_every_script_to_a_fresh_interpreter(tmp_path):
    """Catches a server used although importing its preload printed something (`this` prints the Zen
    of Python): every forked script would then miss that output."""
    printing = FreshPython(("this",))
    try:
        (tmp_path / "x.py").write_text("import this\n")
        ran = printing.run("x.py", tmp_path, timeout=60)
        assert ran.via.startswith("fresh: importing this printed")
        assert ran.text.startswith("The Zen of Python")
    finally:
        printing.stop()


def test_notebook_cells_before_torch_are_checked_as_a_script_is():
    """Catches the guard missing for notebooks, a written helper's statements included."""
    preload = ("torch", "IPython")
    assert cells_before_preload(["%%writefile _h.py\nimport torch\n", "import _h\nx = 1"], preload) is None
    assert "Assign" in cells_before_preload(["%%writefile _h.py\nX = 1\n", "import _h\nimport torch"], preload)
    assert "not plain Python" in cells_before_preload(["%env X=1", "import torch"], preload)
    assert cells_before_preload(["import torch", "%env X=1"], preload) is None


FIXTURE_CELLS = [
    ("%%writefile _helper.py\nVALUE = 42\n\n\ndef fail():\n    raise ValueError('on purpose')", False),
    ("import _helper\nprint(_helper.VALUE)", False),
    ("_helper.fail()", True),
    ("def broken(:\n    pass", True),  # a SyntaxError: IPython's error_before_exec
    ("import os\nprint(sorted(os.listdir()))", False),
    ("undefined_name", False),  # untagged: the run stops here
    ("print('never run')", False),
]


def test_the_cells_run_as_a_real_kernel_runs_them(tmp_path):
    """The notebook harness's oracle: one real nbclient run of a small notebook. Catches a harness that
    disagrees with a kernel on which cells raise (a `%%writefile` helper not importable, a SyntaxError
    not counted, a tagged cell stopping the run, an untagged one not stopping it)."""
    notebook = nbformat.v4.new_notebook()
    for source, may_raise in FIXTURE_CELLS:
        cell = nbformat.v4.new_code_cell(source)
        if may_raise:
            cell.metadata["tags"] = [RAISES_TAG]
        notebook.cells.append(cell)
    (tmp_path / "kernel").mkdir()
    (tmp_path / "forked").mkdir()
    kernel_folder = {"metadata": {"path": str(tmp_path / "kernel")}}
    client = NotebookClient(notebook, timeout=120, kernel_name="python3", resources=kernel_folder)
    with pytest.raises(CellExecutionError, match="NameError"):
        client.execute()
    kernel = [any(o.output_type == "error" for o in c.outputs) for c in notebook.cells if c.execution_count]
    results, ran = NOTEBOOKS.run_cells(FIXTURE_CELLS, tmp_path / "forked", timeout=60)
    assert [r["raised"] for r in results] == kernel == [False, False, True, True, False, True], ran.text
    assert ran.returncode == 0 and "never run" not in ran.text
    assert "'_helper.py'" in ran.text  # beside it, where the kernel may write __pycache__
