"""requirements.lock installs on the machines contributors have: uv resolves it, without installing
anything, for each platform and Python the project supports, from the same places `make` installs from.

A lock change that breaks one of them fails here: a pin with no release or no wheel for one platform or
Python (pymdown-extensions 13.1.2 on Debian 12's Python 3.11.2, `torch==X+cpu` on macOS), or a
dependency one platform needs that the lock leaves out (appnope on macOS)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

LOCK = ROOT / "requirements.lock"
UV = Path(sys.executable).parent / "uv"

# uv's target triples: glibc 2.28 is what torch's Linux wheels need, macOS 14 what its arm64 wheel needs.
PLATFORMS = {
    "linux-x86_64": ("x86_64-manylinux_2_28", {}),
    "macos-arm64": ("aarch64-apple-darwin", {"MACOSX_DEPLOYMENT_TARGET": "14.0"}),
    "windows-x86_64": ("x86_64-pc-windows-msvc", {}),
}
PYTHONS = ["3.11.2", "3.12", "3.13"]  # 3.11.2: Debian 12's python3, the oldest 3.11 a contributor has


def makefile_uv_settings() -> dict[str, str]:
    """The UV_* settings the Makefile exports: where uv finds torch's CPU build on this machine."""
    shown = subprocess.run(
        ["make", "-s", "--no-print-directory", "uv-settings"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(line.split("=", 1) for line in shown.stdout.splitlines() if line.startswith("UV_"))


SETTINGS = makefile_uv_settings()


def resolve(requirements: Path, platform: str, python: str) -> set[str]:
    """The names of every package uv resolves `requirements` to on `platform` with `python`, wheels only."""
    triple, platform_env = PLATFORMS[platform]
    env = {key: value for key, value in os.environ.items() if not key.startswith("UV_")}
    result = subprocess.run(
        [
            UV,
            "pip",
            "compile",
            requirements,
            "--python-platform",
            triple,
            "--python-version",
            python,
            "--only-binary",
            ":all:",
            "--no-header",
            "--no-annotate",
            "--quiet",
        ],
        env={**env, **SETTINGS, **platform_env},
        cwd=ROOT,  # where `make` runs uv: the settings may hold paths relative to it
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, (
        f"requirements.lock does not resolve on {platform}, Python {python}:\n{result.stderr}"
    )
    return {canonicalize_name(Requirement(line).name) for line in result.stdout.splitlines() if line.strip()}


def pinned(lock_text: str) -> set[str]:
    return {canonicalize_name(Requirement(line).name) for line in lock_text.splitlines() if line[:1].isalnum()}


def linux_torch_version() -> str:
    """The version of torch's Linux CPU build in the lock, e.g. `2.13.0+cpu`."""
    torch = next(Requirement(line) for line in LOCK.read_text().splitlines() if re.match(r"torch==.*\+cpu", line))
    return next(iter(torch.specifier)).version


def linux_torch_wheel_unreachable(python: str) -> str | None:
    """Why torch's Linux CPU wheel for `python` cannot be resolved from here, or None if it can.

    It is only on PyTorch's CPU index; this project's machines cannot reach that index and keep just
    the cp311 wheel in the Makefile's wheel folder (PIP_FIND_LINKS)."""
    if "download.pytorch.org" in SETTINGS.get("UV_INDEX", ""):
        return None
    version = linux_torch_version()
    abi = "cp" + "".join(python.split(".")[:2])
    folders = SETTINGS.get("UV_FIND_LINKS", "").split()
    if any(next(Path(folder).glob(f"torch-{version}-{abi}-*.whl"), None) for folder in folders):
        return None
    return (
        f"torch {version} for {abi} on Linux is only on PyTorch's CPU index, which this machine cannot reach "
        f"(its wheel folder {folders} has no {abi} build): every other pin of the lock resolves, torch's was "
        "not verified here. CI resolves it from the index."
    )


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("platform", PLATFORMS)
def test_lock_resolves_and_is_complete(platform, python, tmp_path):
    """uv resolves the lock for `platform` and `python` to nothing but the lock's own pins: a pin with no
    release or wheel there fails, and so does a dependency of that platform missing from the lock."""
    lock_text = LOCK.read_text()
    unreachable = linux_torch_wheel_unreachable(python) if platform.startswith("linux") else None
    if unreachable:
        lock_text = "\n".join(line for line in lock_text.splitlines() if not re.match(r"torch\b", line))
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(lock_text)
    missing = resolve(requirements, platform, python) - pinned(lock_text)
    assert not missing, f"on {platform}, Python {python}, the lock leaves out {sorted(missing)}: run `make lock`"
    if unreachable:
        pytest.skip(unreachable)


def test_lock_is_what_make_lock_writes_from_pyproject(tmp_path):
    """An edit of pyproject.toml's dependencies without `make lock` would leave the lock installing
    something else than pyproject.toml asks for."""
    relocked = tmp_path / "requirements.lock"
    relocked.write_text(LOCK.read_text())  # `make lock` keeps the versions already locked
    result = subprocess.run(
        ["make", "-s", "--no-print-directory", "lock", f"LOCK_FILE={relocked}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert relocked.read_text() == LOCK.read_text(), "requirements.lock is out of date: run `make lock`"


def test_lock_is_what_make_lock_writes_from_pytorchs_index(tmp_path):
    """`make lock` where torch comes from PyTorch's CPU index (contributors' machines, CI), which also has
    `+cpu` builds for Windows: without pyproject.toml's `torch!=X+cpu` for non-Linux, or with the Makefile
    asking only the first index that has torch, the lock it writes is not the committed one. Where the
    index is unreachable, a local stand-in serves torch's Linux CPU wheel from the wheel folder under its
    own name and under a Windows one."""
    if "UV_INDEX" in SETTINGS:
        pytest.skip("make lock reads PyTorch's index itself here: the test above covers it")
    version = linux_torch_version()
    wheel = next(
        (w for folder in SETTINGS["UV_FIND_LINKS"].split() for w in Path(folder).glob(f"torch-{version}-*.whl")), None
    )
    assert wheel, f"no torch {version} wheel in the wheel folder {SETTINGS['UV_FIND_LINKS']}"
    index = tmp_path / "index" / "torch"
    index.mkdir(parents=True)
    windows = re.sub(r"-[^-]+\.whl$", "-win_amd64.whl", wheel.name)
    for name in (wheel.name, windows):
        (index / name).symlink_to(wheel)
    links = "".join(f'<a href="{quote(name)}">{name}</a>' for name in (wheel.name, windows))
    (index / "index.html").write_text(f"<html><body>{links}</body></html>")

    relocked = tmp_path / "requirements.lock"
    relocked.write_text(LOCK.read_text())
    env = {key: value for key, value in os.environ.items() if key not in ("PIP_FIND_LINKS", "UV_FIND_LINKS")}
    result = subprocess.run(
        ["make", "-s", "--no-print-directory", "lock", f"LOCK_FILE={relocked}", f"TORCH_INDEX={index.parent.as_uri()}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert relocked.read_text() == LOCK.read_text(), "make lock writes another lock from PyTorch's index"


# --------------------------------------------------------------------------------------------------
# The README's upgrade steps where the new torch is only in a folder of wheels (`make lock`)


def fake_torch_wheel(folder: Path, version: str) -> Path:
    """A wheel named and described as torch `version` (no code): enough for uv to resolve a lock with it."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    dist_info = f"torch-{version}.dist-info"
    files = {
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist_info}/RECORD"] = "".join(f"{name},,\n" for name in files) + f"{dist_info}/RECORD,,\n"
    path = folder / f"torch-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    return path


def make_lock(folder: Path, wheels: Path) -> subprocess.CompletedProcess:
    """`make lock` in `folder` with this checkout's uv, pip pointed at `wheels` (PIP_FIND_LINKS)."""
    uv = str(Path(sys.executable).parent / "uv")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_"))}
    env["PIP_FIND_LINKS"] = str(wheels)
    return subprocess.run(
        ["make", "lock", f"UV={uv}", "-o", uv], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )


def upgrade_copy(tmp_path: Path, version: str) -> Path:
    tmp_path.mkdir()
    for name in ("Makefile", "pyproject.toml", "requirements.lock"):
        shutil.copy(ROOT / name, tmp_path / name)
    # The site depends on the engine, whose dependencies the lock covers.
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "packages", tmp_path / "packages", ignore=skip)
    pyproject = tmp_path / "pyproject.toml"
    lines = [line for line in pyproject.read_text().splitlines() if not re.match(r'\s*"torch[=!]=', line)]
    start = next(n for n, line in enumerate(lines) if line.startswith("dependencies = ["))
    lines[start + 1 : start + 1] = [  # the three torch lines, as the README's upgrade steps write them
        f'    "torch=={version}",',
        f"    \"torch=={version}+cpu; sys_platform == 'linux'\",",
        f"    \"torch!={version}+cpu; sys_platform != 'linux'\",",
    ]
    pyproject.write_text("\n".join(lines) + "\n")
    return tmp_path


def test_make_lock_takes_the_new_torch_from_a_folder_of_wheels(tmp_path):
    """Catches `make lock` not handing pip's folder of wheels (PIP_FIND_LINKS) to uv: on a machine without
    PyTorch's index, the README's upgrade could not lock the new torch's CPU build."""
    copy = upgrade_copy(tmp_path / "project", "2.14.1")
    fake_torch_wheel(tmp_path / "wheels", "2.14.1+cpu")
    done = make_lock(copy, tmp_path / "wheels")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "torch==2.14.1+cpu ; sys_platform == 'linux'" in (copy / "requirements.lock").read_text()


def test_a_failed_make_lock_leaves_the_lock_and_fails(tmp_path):
    """Catches a `make lock` that exits 0, or writes a lock, when the new torch cannot be found (the README
    chains `make lock && make update-outputs`, and recording refuses a torch other than the pin)."""
    copy = upgrade_copy(tmp_path / "project", "2.99.0")
    (tmp_path / "wheels").mkdir()
    done = make_lock(copy, tmp_path / "wheels")
    assert done.returncode != 0
    assert (copy / "requirements.lock").read_text() == (ROOT / "requirements.lock").read_text()
