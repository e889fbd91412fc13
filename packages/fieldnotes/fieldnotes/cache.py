"""The project's store of earlier results (`.cache/fieldnotes/`), reused only when nothing that could
change them has changed.

Every entry is keyed by its inputs, the code that makes it (named in its `kind`) and the environment:
the Python version, the machine, the name and version of every installed distribution (torch first
among them; not fieldnotes' own, whose code is in the keys by content) and the runner's code. A
run's key also covers the snippet's path and the helpers it imports (`Example.helpers`). A hit returns exactly what
was stored; a run's output is still compared with the recorded one by whoever loads it.

A build uses one `Store` (made for that build: its `reuse` is the plugin's `cache` option). The
entries a build makes are named `build-KEY.json`; each load or save of one marks it used (its
modification time), so that a full build can evict the entries it did not use (`evict_unused`).
Entries under any other name (a `Store` made with another prefix) are never evicted.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from packaging.utils import canonicalize_name

from fieldnotes import DISTRIBUTION, runner
from fieldnotes.examples import Example
from fieldnotes.runner import Run

CACHE_DIR = ".cache/fieldnotes"
BUILD_ENTRY = "build-"
"""The name every entry a build makes starts with: the entries `evict_unused` may delete."""


def environment_fingerprint() -> str:
    """A digest of what is installed and which interpreter runs it.

    fieldnotes' own distribution is left out: its code is in the key by content (the runner, the graph
    package), and an editable install's `*.egg-info` is only found when its folder is on sys.path, so
    counting it would make a cache filled from another directory miss."""
    runner_code = Path(runner.__file__).read_bytes()
    parts = [sys.version, platform.machine(), *installed(), hashlib.sha256(runner_code).hexdigest()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def installed() -> list[str]:
    """Every installed distribution, named by its metadata folder (`torch-2.13.0.dist-info`): its name
    and version. Read from the folder names alone: parsing each one's METADATA is far slower."""
    folders = []
    here = os.getcwd()
    for entry in sys.path:
        if entry in ("", here):  # the project's folder (`python -m`), not an environment: a checkout's egg-info
            continue
        try:
            with os.scandir(entry) as found:
                folders += [f.name for f in found if f.name.endswith((".dist-info", ".egg-info"))]
        except OSError:  # a zip, or a folder that does not exist
            continue
    return sorted(f for f in folders if _distribution_of(f) != DISTRIBUTION)


def _distribution_of(folder: str) -> str:
    """`mkdocs_jupyter-0.26.3.dist-info` or `mkdocs_jupyter.egg-info` -> `mkdocs-jupyter`."""
    return canonicalize_name(folder.removesuffix(".dist-info").removesuffix(".egg-info").split("-")[0])


def code_digest(*files: str | Path) -> str:
    """A digest of the code in `files`, to name in an entry's kind: what that code computes is computed
    again when it changes."""
    return hashlib.sha256(b"".join(Path(file).read_bytes() for file in files)).hexdigest()


class Store:
    """The cache folder of the project in `root`, as one build (or one command) uses it."""

    def __init__(self, root: Path, *, reuse: bool = True, environment: str | None = None, prefix: str = BUILD_ENTRY):
        self.root = root
        self.folder = root / CACHE_DIR
        self.reuse = reuse
        """False (the plugin's `cache: false`): nothing is loaded or saved, every result is made again."""
        self.environment = environment or environment_fingerprint()
        self.prefix = prefix

    def key(self, kind: str, *contents: bytes) -> str:
        digest = hashlib.sha256(f"{self.environment}\n{kind}\n".encode())
        for content in contents:
            digest.update(content)
        return self.prefix + digest.hexdigest()

    def run_key(self, snippet: str, kind: str = "build") -> str:
        """The key of running `snippet` the `kind` way (with `then` code, say): it covers the snippet's
        path (what it prints can name it: `__file__`, a traceback) and the helpers it imports, each
        named, too."""
        helpers = Example(self.root, snippet).helpers
        named = b"".join(h.encode() + b"\0" + (self.root / h).read_bytes() for h in helpers)
        return self.key(kind, snippet.encode() + b"\0", (self.root / snippet).read_bytes(), named)

    def content_key(self, kind: str, content: bytes) -> str:
        """The key of `content` that holds all it runs (a notebook)."""
        return self.key(kind, content)

    def load(self, key: str) -> dict | None:
        if not self.reuse:
            return None
        path = self.folder / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            os.utime(path)  # used by this build: evict_unused keeps it
        except FileNotFoundError:  # never stored, or evicted by another build since
            return None
        return data

    def save(self, key: str, data: dict) -> None:
        """Store `data` under `key`, atomically: a killed build, or two writers at once, leave no torn entry."""
        if not self.reuse:
            return
        path = self.folder / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_text(json.dumps(data), encoding="utf-8")
        partial.replace(path)

    def memo(self, kind: str, content: bytes, compute: Callable[[], dict]) -> dict:
        """What `compute()` returns for `content`: computed once, then reused while the content, `kind`
        (name the code that computes it there) and the environment are unchanged. `content` is all the
        input `compute` reads."""
        key = self.key(kind, content)
        stored = self.load(key)
        if stored is None:
            stored = compute()
            self.save(key, stored)
        return stored

    def load_run(self, example: Example, kind: str = "build") -> Run | None:
        stored = self.load(self.run_key(example.snippet, kind))
        return None if stored is None else Run(output=stored["output"], exit_code=stored["exit_code"])

    def save_run(self, example: Example, run: Run, kind: str = "build") -> None:
        data = {"snippet": example.snippet, "output": run.output, "exit_code": run.exit_code}
        self.save(self.run_key(example.snippet, kind), data)

    def now(self) -> float:
        """The time as the store's files are stamped with it: file times come from a coarser clock than
        time.time(), which can be ahead of it, so a build that started by time.time() could see an entry
        it used a moment later as older than its start."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.folder, prefix=".now-") as probe:
            return os.stat(probe.name).st_mtime

    def evict_unused(self, since: float) -> list[Path]:
        """Delete this store's entries not used since `since` (a `now()`), and return them. A build
        calls it at its end, only when it used every entry it needs (a full build, not a dirty one).
        A reader that opened an entry still reads it whole; one that comes after finds none and makes
        it again (`load` returns None)."""
        evicted = []
        for path in self.folder.glob(f"{self.prefix}*.json"):
            try:
                if path.stat().st_mtime < since:
                    path.unlink()
                    evicted.append(path)
            except FileNotFoundError:  # another build evicted it first
                continue
        return evicted
