"""The environment of the torch a drift report tries: torch and the rest of requirements.lock, installed by
uv from where pip is set up to look (uv reads none of pip's settings), under .cache/drift-report/."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ENVS_DIR = ".cache/drift-report"
LOCK_FILE = "requirements.lock"


def torch_requirement(torch: str) -> str:
    """`2.14.1` -> `torch==2.14.1`; a wheel's path stays a path (made absolute)."""
    if torch.endswith(".whl") or os.sep in torch:
        return str(Path(torch).resolve())
    return f"torch=={torch}"


def environment_dir(root: Path, torch: str) -> Path:
    name = Path(torch).name.removesuffix(".whl") if torch.endswith(".whl") else f"torch-{torch}"
    return root / ENVS_DIR / re.sub(r"[^\w.+-]", "_", name)


def pip_settings(python: str = sys.executable) -> dict[str, str]:
    """pip's configuration as `pip config list` shows it (files and PIP_* variables): key -> value."""
    done = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True)
    settings = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        # "global.find-links" or ":env:.find-links": the variables outrank the files, and come first.
        name = key.rsplit(".", 1)[-1]
        settings.setdefault(name, value.strip().strip("'\""))
    return settings


def uv_arguments(settings: dict[str, str]) -> list[str]:
    """The options that make uv look where pip looks (uv reads no pip configuration)."""
    arguments = []
    if "index-url" in settings:
        arguments += ["--default-index", settings["index-url"]]
    for url in settings.get("extra-index-url", "").split():
        arguments += ["--index", url]
    for folder in settings.get("find-links", "").split():
        arguments += ["--find-links", folder]
    for constraints in settings.get("constraint", "").split():
        arguments += ["--constraints", constraints]
    if arguments:
        # As pip does: the best version from any index or folder (uv's default stops at the first index).
        arguments += ["--index-strategy", "unsafe-best-match"]
    return arguments


def lock_without_torch(root: Path) -> str:
    lines = (root / LOCK_FILE).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not re.match(r"torch\s*==", line)) + "\n"


def ensure_environment(root: Path, torch: str, folder: Path, uv: str) -> Path:
    """An environment with `torch` and the rest of the lock in `folder`; reused while those are unchanged."""
    python = folder / "bin" / "python"
    requirement = torch_requirement(torch)
    wanted = hashlib.sha256((requirement + "\n" + lock_without_torch(root)).encode()).hexdigest()
    stamp = folder / ".installed"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    if not python.exists():
        subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as requirements:
        requirements.write(lock_without_torch(root))
    command = [uv, "pip", "install", "--python", str(python), "-r", requirements.name, requirement]
    command += uv_arguments(pip_settings())
    print(f"installing {requirement} with the rest of {LOCK_FILE} into {folder}:\n  {shlex.join(command)}", flush=True)
    done = subprocess.run(command)
    os.unlink(requirements.name)
    if done.returncode != 0:
        raise SystemExit(
            f"could not install {requirement} into {folder} (uv's message above). Where pip is set up with a "
            "constraints file (`pip config list`), it applies here too."
        )
    stamp.write_text(wanted)
    return python
