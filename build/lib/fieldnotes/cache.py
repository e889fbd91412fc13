"""Outputs of earlier runs, reused only when nothing that could change them has changed.

The key of a snippet's output covers the snippet, every helper module beside the snippets (`_*.py`),
the code that runs and captures it, the Python version, and the name and version of every installed
distribution (torch first among them). Changing any of these runs the snippet again; a hit returns
exactly what the earlier run printed, which the build still compares with the recorded output.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import platform
import sys
from pathlib import Path

from fieldnotes import runner
from fieldnotes.examples import SNIPPETS_DIR, Example
from fieldnotes.runner import Run

CACHE_DIR = ".cache/fieldnotes"


@functools.cache
def environment_fingerprint() -> str:
    """A digest of what is installed and which interpreter runs it."""
    distributions = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    runner_code = Path(runner.__file__).read_bytes()
    parts = [sys.version, platform.machine(), *distributions, hashlib.sha256(runner_code).hexdigest()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def key(example: Example) -> str:
    digest = hashlib.sha256(environment_fingerprint().encode())
    digest.update((example.root / example.snippet).read_bytes())
    for helper in sorted((example.root / SNIPPETS_DIR).rglob("_*.py")):
        digest.update(helper.relative_to(example.root).as_posix().encode() + helper.read_bytes())
    return digest.hexdigest()


def load(example: Example) -> Run | None:
    path = example.root / CACHE_DIR / f"{key(example)}.json"
    if not path.exists():
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    return Run(output=stored["output"], exit_code=stored["exit_code"])


def store(example: Example, run: Run) -> None:
    path = example.root / CACHE_DIR / f"{key(example)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"snippet": example.snippet, "output": run.output, "exit_code": run.exit_code}))
