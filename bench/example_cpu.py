"""The CPU seconds each example costs to run, torch already imported: the compute a cold build cannot avoid.

`python bench/example_cpu.py PATH...` imports torch once, then runs each file (a snippet, the rules
check, the exercise notebook as the script jupytext reads) in a child forked from this process, as the
build's runner does, with its output discarded. A child's cost is the CPU time the kernel accounts to it
(user and system, all its threads), read by `os.wait4`: time it spent waiting for a core is not in it,
so the figure holds on a busy machine too. Prints one JSON object: {path: seconds}. A child that ends
other than as `python` would (0, or 1 for an example that raises on purpose) stops the script.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
from pathlib import Path

import torch  # noqa: F401 - imported once, before the forks, as the runner's server does

# The exercise shows its figures with IPython; a script run has no display to show them on.
os.environ.setdefault("MPLBACKEND", "Agg")
# A helper the example imports from its folder would leave a __pycache__ beside it, in the project.
sys.dont_write_bytecode = True


def cpu_seconds(root: Path, path: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        return _cpu_seconds_in(folder, root, path)


def _cpu_seconds_in(folder: str, root: Path, path: str) -> float:
    # An empty folder, as the drift report runs the exercise: run as a script it saves its figures
    # there, which in its own folder would be docs/exercise/.
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(folder)
            sys.path.insert(0, str(root / Path(path).parent))
            sys.argv = [path]
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            runpy.run_path(str(root / path), run_name="__main__")
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 0
        except BaseException:  # noqa: BLE001 - any failure: the parent reports it
            code = 1
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    exit_code = os.waitstatus_to_exitcode(status)
    # A snippet that shows an error on purpose exits 1 as `python` would: that run still counts.
    if exit_code not in (0, 1):
        raise SystemExit(f"{path} ended with {exit_code}")
    return usage.ru_utime + usage.ru_stime


def main(paths: list[str]) -> None:
    root = Path.cwd()
    print(json.dumps({path: cpu_seconds(root, path) for path in paths}))


if __name__ == "__main__":
    main(sys.argv[1:])
