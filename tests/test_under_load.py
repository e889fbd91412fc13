"""bench/under_load.py runs a command beside CPU-bound processes: they really load the cores while it runs,
they are all gone afterwards, and the script fails when the command fails. (Whether the suite passes
under load is what the script measures, not what this file tests.)"""

from __future__ import annotations

import importlib.util
import multiprocessing
import sys
import time

import psutil

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("under_load", ROOT / "bench" / "under_load.py")
under_load = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(under_load)


def test_hogs_burn_cpu_while_they_run_and_are_stopped_after():
    """Catches hogs that sleep instead of spinning (no load at all) and hogs left running after the script."""
    hogs = under_load.start_hogs(2, max_seconds=120)
    try:
        processes = [psutil.Process(hog.pid) for hog in hogs]
        before = [sum(p.cpu_times()[:2]) for p in processes]
        time.sleep(1.0)
        after = [sum(p.cpu_times()[:2]) for p in processes]
        assert all(b > a for a, b in zip(before, after, strict=True)), (before, after)
    finally:
        under_load.stop_hogs(hogs)
    assert not any(hog.is_alive() for hog in hogs)


def test_a_hog_stops_by_itself_when_its_time_is_up():
    """Catches a hog that runs on forever when the script is killed before it can stop it."""
    hog = multiprocessing.Process(target=under_load.spin, args=(0.2,))
    hog.start()
    hog.join(timeout=60)
    assert hog.exitcode == 0


def test_the_script_exits_with_the_commands_code_and_leaves_no_hog(capsys):
    """Catches a script that reports success while the suite failed under load, or forgets its hogs."""
    code = under_load.main(["--hogs", "1", "--", sys.executable, "-c", "raise SystemExit(3)"])
    assert code == 3
    assert "beside 1 hog(s): exit 3" in capsys.readouterr().out
    assert not multiprocessing.active_children()


def test_pytests_closing_line_is_reported():
    line = "========== 612 passed, 7 skipped in 152.31s (0:02:32) =========="
    assert under_load.SUMMARY.findall(f"collected\n{line}\n") == ["612 passed, 7 skipped"]
