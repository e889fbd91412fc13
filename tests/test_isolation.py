"""Examples cannot affect each other: each runs in its own process, so global torch state a snippet
changes is gone before the next one runs, in a build and across `mkdocs serve` rebuilds."""

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
CHECKER = """import _shared
import torch

print("grad enabled:", torch.is_grad_enabled())
print("default dtype:", torch.get_default_dtype())
print("seeded with 123:", torch.initial_seed() == 123)
print("anomaly mode:", torch.is_anomaly_enabled())
print("threads:", torch.get_num_threads())
_shared.model(torch.ones(1, 1))
"""


def run(code: str, cwd) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def polluted(project: Project) -> Project:
    project.snippet("_shared.py", SHARED)
    for name, code in POLLUTERS.items():
        project.snippet(name, code, recorded="")
    project.snippet("checker.py", CHECKER)
    return project


def test_global_state_does_not_leak_between_examples(polluted: Project):
    snippets = polluted.path / "snippets"
    fresh = run("import runpy; runpy.run_path('checker.py', run_name='__main__')", snippets)
    # The fixture has teeth: in one shared interpreter, as markdown-exec would run them, the state leaks.
    shared = run(
        "import runpy\n"
        + "".join(f"runpy.run_path({name!r}, run_name='__main__')\n" for name in [*POLLUTERS, "checker.py"]),
        snippets,
    )
    assert shared != fresh and "a global module hook ran" in shared
    (snippets / "checker.out").write_text(fresh)
    # Polluters first, on the page and in the nav, then the checker: it must print what a fresh python prints.
    polluted.page("a.md", "# Polluters\n\n" + "".join(block(name) for name in POLLUTERS))
    polluted.page("b.md", "# Checker\n\n" + block("checker.py"))
    result = polluted.build()
    assert result.returncode == 0, result.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(predicate, what: str, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_serve_rebuild_rechecks_an_edited_example(project: Project, tmp_path):
    project.snippet("example.py", "print('first version')\n", recorded="first version\n")
    project.page("index.md", "# Page\n\n" + block("example.py"))
    project.build()  # writes mkdocs.yml
    port = _free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
            cwd=project.path,
            env=BUILD_ENV,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:

        def page() -> str:
            try:
                return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                return ""

        def log_text() -> str:
            return log_path.read_text()

        _wait_for(lambda: "first version" in page(), "the first build")
        # Edit the snippet only: serve must notice (snippets/ is watched) and re-run it, failing on drift.
        (project.path / "snippets" / "example.py").write_text("print('second version')\n")
        _wait_for(lambda: "printed something other than its recorded output" in log_text(), "the drift warning")
        assert re.search(r"\+second version", log_text())
        # Re-record: the next rebuild passes and serves the new output, not a stale one.
        (project.path / "snippets" / "example.out").write_text("second version\n")
        _wait_for(lambda: "second version" in page(), "the rebuilt page")
        assert "first version" not in page()
    finally:
        server.terminate()
        server.wait(timeout=30)
