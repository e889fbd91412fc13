"""Run the test suite beside CPU-bound processes, as on a busy laptop or a shared runner, and report it.

`python bench/under_load.py [--hogs N] [--idle] [-- COMMAND...]` starts N processes that do nothing but
spin on a core, runs COMMAND (default `make test`) beside them, stops them, and prints the command's exit
code, its wall time and pytest's closing line. `--idle` runs the command once alone first, for the time
to compare with. Each hog stops by itself after `--max-seconds` even if this script is killed, and the
script stops every hog it started before it exits. It exits with the command's exit code, so
`make test` failing under load fails this script.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# pytest's closing line: "==== 612 passed, 7 skipped in 152.31s (0:02:32) ====".
SUMMARY = re.compile(r"^=+ (?P<counts>.*\d+ (?:passed|failed|error).*) in [\d.]+s.* =+$", re.MULTILINE)


def spin(max_seconds: float) -> None:
    """Keep one core busy until `max_seconds` have passed."""
    deadline = time.monotonic() + max_seconds
    while time.monotonic() < deadline:
        for _ in range(100_000):
            pass


def start_hogs(count: int, max_seconds: float) -> list[multiprocessing.Process]:
    hogs = [multiprocessing.Process(target=spin, args=(max_seconds,), daemon=True) for _ in range(count)]
    for hog in hogs:
        hog.start()
    return hogs


def stop_hogs(hogs: list[multiprocessing.Process]) -> None:
    for hog in hogs:
        hog.terminate()
    for hog in hogs:
        hog.join(timeout=10)


def run(command: list[str]) -> tuple[int, float, str]:
    """Exit code, wall seconds and pytest's closing line (or "") of one run of `command`."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode:
        sys.stdout.write(output[-6000:])
    summary = SUMMARY.findall(output)
    return done.returncode, elapsed, summary[-1] if summary else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound processes beside the command (default 2)")
    parser.add_argument("--idle", action="store_true", help="run the command alone first, to compare")
    parser.add_argument(
        "--max-seconds", type=float, default=3600, help="each hog stops by itself after this (default 3600)"
    )
    parser.add_argument("command", nargs="*", default=["make", "--no-print-directory", "test"])
    args = parser.parse_args(argv)
    if args.idle:
        code, seconds, summary = run(args.command)
        print(f"idle:            exit {code}, {seconds:7.1f} s  {summary}", flush=True)
    hogs = start_hogs(args.hogs, args.max_seconds)
    try:
        code, seconds, summary = run(args.command)
    finally:
        stop_hogs(hogs)
    print(f"beside {args.hogs} hog(s): exit {code}, {seconds:7.1f} s  {summary}")
    return code


if __name__ == "__main__":
    sys.exit(main())
