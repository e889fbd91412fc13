"""Examples cannot affect each other: each runs in its own process, so global torch state a snippet
changes is gone before the next one runs, in a build and across `mkdocs serve` rebuilds.

The build starts examples in sorted order, several at once; so that the checker runs after every
polluter has finished (and not beside them), each polluter leaves a marker file as its last act and
the checker waits for all of them before it looks."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import BUILD_ENV, Project, block

SHARED = "import torch\n\nmodel = torch.nn.Linear(1, 1)\n"
POLLUTERS = {
    "grad_mode.py": "import torch\n\ntorch.set_grad_enabled(False)\n",
    "dtype.py": "import torch\n\ntorch.set_default_dtype(torch.float64)\n",
    "seed.py": "import torch\n\ntorch.manual_seed(123)\n",
    "anomaly.py": "import torch\n\ntorch.autograd.set_detect_anomaly(True)\n",
    "threads.py": "import torch\n\ntorch.set_num_threads(1)\n",
    "hooks.py": (
        "import _shared\nimport torch\n\n"
        "_shared.model.register_forward_hook(lambda m, i, o: print('a hook left on a shared module ran'))\n"
        "torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: print('a global module hook ran'))\n"
    ),
}
CHECKER_NAME = "zz_checker.py"  # sorted last, so the build starts it after every polluter
DONE = "'done-' + __import__('os').path.basename(__file__)"  # a marker in the working directory (the project root)
CHECKER = f"""import time
from pathlib import Path

import _shared
import torch

polluters = {sorted(POLLUTERS)}
deadline = time.monotonic() + 15
while not all(Path(f"done-{{name}}").exists() for name in polluters):
    if time.monotonic() > deadline:
        raise SystemExit(f"the polluters did not all finish: {{sorted(p.name for p in Path().glob('done-*'))}}")
    time.sleep(0.05)

print("grad enabled:", torch.is_grad_enabled())
print("default dtype:", torch.get_default_dtype())
print("seeded with 123:", torch.initial_seed() == 123)
print("anomaly mode:", torch.is_anomaly_enabled())
print("threads:", torch.get_num_threads())
_shared.model(torch.ones(1, 1))
"""


def run(code: str, cwd) -> str:
    code = "import sys\nsys.path.insert(0, 'snippets')\n" + code  # where the helper _shared.py is
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def polluted(project: Project) -> Project:
    project.snippet("_shared.py", SHARED)
    for name, code in POLLUTERS.items():
        project.snippet(name, f"{code}\n__import__('pathlib').Path({DONE}).touch()\n", recorded="")
    project.snippet(CHECKER_NAME, CHECKER)
    return project


def test_global_state_does_not_leak_between_examples(polluted: Project):
    """Catches running examples in the build's process (as markdown-exec does), or in worker processes
    that are reused from one example to the next."""
    snippets = polluted.path / "snippets"
    for name in POLLUTERS:  # the markers, for the fresh run below
        (polluted.path / f"done-{name}").touch()
    fresh = run("import runpy; runpy.run_path('snippets/zz_checker.py', run_name='__main__')", polluted.path)
    # The fixture has teeth: in one shared interpreter, as markdown-exec would run them, the state leaks.
    shared = run(
        "import runpy\n"
        + "".join(f"runpy.run_path('snippets/{name}', run_name='__main__')\n" for name in [*POLLUTERS, CHECKER_NAME]),
        polluted.path,
    )
    assert shared != fresh and "a global module hook ran" in shared
    for marker in polluted.path.glob("done-*"):
        marker.unlink()
    (snippets / CHECKER_NAME).with_suffix(".out").write_text(fresh)
    polluted.page("a.md", "# Polluters\n\n" + "".join(block(name) for name in POLLUTERS))
    polluted.page("b.md", "# Checker\n\n" + block(CHECKER_NAME))
    polluted.set_option("fieldnotes", cache=False)
    result = polluted.build()
    assert result.returncode == 0, result.stderr
    assert len(list(polluted.path.glob("done-*"))) == len(POLLUTERS), "the polluters did not run in the build"


def _wait_for(predicate, what: str, log, timeout: float = 180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; the server's log:\n{log()}")


def serve(project: Project, log_path) -> tuple[subprocess.Popen, int]:
    """`mkdocs serve` of the project on a free port. A port picked free can be taken by another test before
    the server binds it (xdist runs tests side by side): then try another."""
    for _ in range(5):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                cwd=project.path,
                env=BUILD_ENV,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        started = lambda server=server: "Serving on" in log_path.read_text() or server.poll() is not None  # noqa: E731
        _wait_for(started, "serve to start", log_path.read_text)
        if server.poll() is None:
            return server, port
        if "Address already in use" not in log_path.read_text():
            raise AssertionError(f"mkdocs serve failed:\n{log_path.read_text()}")
    raise AssertionError("no free port for mkdocs serve after 5 tries")


def test_serve_rebuild_rechecks_an_edited_example(project: Project, tmp_path):
    """Catches a serve rebuild that does not re-run an edited snippet (snippets/ not watched, or a stale
    output reused), one that shows a drifted output instead of the diff, and one that keeps failing (or
    keeps the old page) after the new output is recorded."""
    project.snippet("example.py", "print('first version')\n", recorded="first version\n")
    project.page("index.md", "# Page\n\n" + block("example.py"))
    project.config["strict"] = False  # as `make serve` runs (FIELDNOTES_STRICT=false): a strict abort stalls the pages
    project.build()  # writes mkdocs.yml
    log_path = tmp_path / "serve.log"
    server, port = serve(project, log_path)
    try:

        def page() -> str:
            try:
                return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                return ""

        def log_text() -> str:
            return log_path.read_text()

        def since(offset: int) -> str:
            return log_text()[offset:]

        _wait_for(lambda: "first version" in page(), "the first build", log_text)
        # Edit the snippet only: serve must notice (snippets/ is watched) and re-run it, failing on drift.
        (project.path / "snippets" / "example.py").write_text("print('second version')\n")
        drift = "printed something other than its recorded output"
        _wait_for(lambda: drift in log_text(), "the drift warning", log_text)
        assert re.search(r"\+second version", log_text())
        # The page shows the diff, not the unrecorded output.
        _wait_for(lambda: "fieldnotes-drift" in page(), "the page with the drift", log_text)
        shown = page()
        assert "+second version" in shown and "-first version" in shown
        assert not re.search(r"<code>\s*second version", shown), "the page shows the drifted output as the result"
        drifted = len(log_text())
        # Re-record: the next rebuild is clean (no warning, no abort) and serves the new output.
        (project.path / "snippets" / "example.out").write_text("second version\n")

        # MkDocs logs a message only once per process, so an identical "Documentation built in 0.34
        # seconds" may not appear again: a rebuild has finished when a reload follows its start.
        def rebuilt() -> bool:
            text = since(drifted)
            start = text.rfind("Building documentation...")
            return start != -1 and "Reloading browsers" in text[start:]

        _wait_for(rebuilt, "a clean rebuild", log_text)
        assert "WARNING" not in since(drifted) and "Aborted" not in since(drifted), since(drifted)
        assert "second version" in page() and "fieldnotes-drift" not in page() and "first version" not in page()
    finally:
        server.terminate()
        server.wait(timeout=30)
