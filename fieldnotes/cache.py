"""Outputs of earlier runs, reused only when nothing that could change them has changed.

The key of a run covers what runs (a snippet, or a notebook made of snippets), every helper module
beside the snippets (`_*.py`), the code that runs and captures it, the Python version, the name and
version of every installed distribution (torch first among them; not this project's own, which
shows up once or twice depending on whether the checkout is on sys.path), and how it runs (`kind`: the
build's runner, or a reader's `python snippets/x.py`). Changing any of these runs it again; a hit
returns exactly what the earlier run printed, which the build and the tests still compare with the
recorded output.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from packaging.utils import canonicalize_name

from fieldnotes import DISTRIBUTION, runner
from fieldnotes.examples import SNIPPETS_DIR, Example
from fieldnotes.runner import Run

CACHE_DIR = ".cache/fieldnotes"


@functools.cache
def environment_fingerprint() -> str:
    """A digest of what is installed and which interpreter runs it.

    The project's own distribution is left out: its code is in the key by content (the runner, the graph
    package), and its `*.egg-info` in the checkout is only found when the checkout is on sys.path, so
    counting it would make a cache filled from another directory miss."""
    runner_code = Path(runner.__file__).read_bytes()
    parts = [sys.version, platform.machine(), *installed(), hashlib.sha256(runner_code).hexdigest()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def installed() -> list[str]:
    """Every installed distribution, named by its metadata folder (`torch-2.13.0.dist-info`): its name
    and version. Read from the folder names alone: parsing each one's METADATA cost a tenth of a build."""
    folders = []
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                folders += [f.name for f in found if f.name.endswith((".dist-info", ".egg-info"))]
        except OSError:  # a zip, or a folder that does not exist
            continue
    return sorted(f for f in folders if _distribution_of(f) != DISTRIBUTION)


def _distribution_of(folder: str) -> str:
    """`autograd_field_notes-0.1.0.dist-info` or `autograd_field_notes.egg-info` -> `autograd-field-notes`."""
    return canonicalize_name(folder.removesuffix(".dist-info").removesuffix(".egg-info").split("-")[0])


def _key(kind: str, *contents: bytes) -> str:
    digest = hashlib.sha256(f"{environment_fingerprint()}\n{kind}\n".encode())
    for content in contents:
        digest.update(content)
    return digest.hexdigest()


def content_key(root: Path, kind: str, content: bytes) -> str:
    """The key of running `content` the `kind` way in this project and this environment: it covers every
    helper a snippet could import, too."""
    helpers = sorted((root / SNIPPETS_DIR).rglob("_*.py"))
    return _key(kind, content, *(h.relative_to(root).as_posix().encode() + h.read_bytes() for h in helpers))


def code_digest(*files: str | Path) -> str:
    """A digest of the code in `files`, to name in a memo's kind: what that code computes is computed
    again when it changes."""
    return hashlib.sha256(b"".join(Path(file).read_bytes() for file in files)).hexdigest()


def key(example: Example, kind: str = "build") -> str:
    return content_key(example.root, kind, (example.root / example.snippet).read_bytes())


def load_data(root: Path, key: str) -> dict | None:
    path = root / CACHE_DIR / f"{key}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def store_data(root: Path, key: str, data: dict) -> None:
    """Store `data` under `key`, atomically: a killed build, or two writers at once, leave no torn entry."""
    path = root / CACHE_DIR / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    partial.write_text(json.dumps(data), encoding="utf-8")
    partial.replace(path)


# Whether `memo` reuses anything: the fieldnotes plugin sets it from its `cache` setting
# (FIELDNOTES_CACHE=false turns reuse off for every build step, as for runs).
reuse = True


def memo(root: Path, kind: str, content: bytes, compute: Callable[[], dict]) -> dict:
    """What `compute()` returns for `content`: computed once, then reused while the content, `kind`
    (name the code that computes it there) and the environment are unchanged. `content` is all the input
    `compute` reads (unlike a run's key, no helper is added: a build calls this for every block and page)."""
    if not reuse:
        return compute()
    content_hash = _key(kind, content)
    stored = load_data(root, content_hash)
    if stored is None:
        stored = compute()
        store_data(root, content_hash, stored)
    return stored


def load(example: Example, kind: str = "build") -> Run | None:
    stored = load_data(example.root, key(example, kind))
    return None if stored is None else Run(output=stored["output"], exit_code=stored["exit_code"])


def store(example: Example, run: Run, kind: str = "build") -> None:
    data = {"snippet": example.snippet, "output": run.output, "exit_code": run.exit_code}
    store_data(example.root, key(example, kind), data)
