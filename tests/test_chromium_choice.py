"""Which Chromium the browser tests launch (tests/browser/browser_site.py, choose_chromium), given which
browsers exist and what CHROMIUM says: files made in a temporary folder stand for the browsers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.browser_site import MISSING_MESSAGE, NoChromium, choose_chromium


def _browser(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def browsers(tmp_path):
    """Playwright's own, Debian's headless shell and Debian's full browser, all installed."""
    return {
        "playwright": _browser(tmp_path / "ms-playwright" / "chromium-1" / "chrome-linux64" / "chrome"),
        "shell": _browser(tmp_path / "usr" / "bin" / "chromium-headless-shell"),
        "full": _browser(tmp_path / "usr" / "bin" / "chromium"),
        "other": _browser(tmp_path / "snap" / "bin" / "chromium"),
    }


def test_chromium_names_the_browser_over_every_other(browsers):
    """Catches CHROMIUM ignored, or read after Playwright's or Debian's browser."""
    chosen = choose_chromium(
        {"CHROMIUM": str(browsers["other"])}, browsers["playwright"], (browsers["shell"], browsers["full"])
    )
    assert chosen.executable == browsers["other"]
    assert "CHROMIUM=" in chosen.name


def test_playwrights_own_comes_before_debians(browsers):
    """Catches Debian's browser preferred over Playwright's installed one, or Playwright's launched with
    a path (None lets Playwright pick its headless shell)."""
    chosen = choose_chromium({}, browsers["playwright"], (browsers["shell"], browsers["full"]))
    assert chosen.executable is None
    assert "Playwright" in chosen.name


def test_debians_headless_shell_then_its_full_browser(browsers, tmp_path):
    """Catches Playwright's browser taken when its file is missing, or the full browser preferred."""
    missing = tmp_path / "ms-playwright" / "chromium-2" / "chrome-linux64" / "chrome"
    debian = (browsers["shell"], browsers["full"])
    assert choose_chromium({"CHROMIUM": "  "}, missing, debian).executable == browsers["shell"]
    browsers["shell"].unlink()
    assert choose_chromium({}, missing, debian).executable == browsers["full"]


def test_a_file_that_cannot_run_is_no_browser(browsers, tmp_path):
    """Catches a file picked for existing only: Debian's path without its execute bit."""
    browsers["shell"].chmod(0o644)
    chosen = choose_chromium({}, None, (browsers["shell"], browsers["full"]))
    assert chosen.executable == browsers["full"]


def test_no_browser_says_how_to_get_one(tmp_path):
    """Catches a silent skip: the message names Playwright's install, Debian's package and CHROMIUM."""
    with pytest.raises(NoChromium) as missing:
        choose_chromium({}, tmp_path / "chrome", (tmp_path / "chromium-headless-shell",))
    assert str(missing.value) == MISSING_MESSAGE
    for way in ("playwright install chromium", "apt-get install chromium-headless-shell", "CHROMIUM="):
        assert way in MISSING_MESSAGE


def test_a_chromium_that_names_nothing_is_an_error(browsers, tmp_path):
    """Catches a mistyped CHROMIUM silently falling back to another browser."""
    with pytest.raises(NoChromium, match="CHROMIUM=.*not an executable"):
        choose_chromium({"CHROMIUM": str(tmp_path / "nope")}, browsers["playwright"], (browsers["shell"],))


class _Reporter:
    """What pytest_terminal_summary reads and writes of pytest's terminal reporter."""

    def __init__(self, stats):
        self.stats = stats
        self.lines: list[str] = []

    def write_sep(self, sep, title, **markup):
        self.lines.append(title)

    def write_line(self, line, **markup):
        self.lines.append(line)


def test_the_runs_last_lines_count_the_skips_by_reason():
    """Catches a run that hides its skips: every browser test skipped for want of a Chromium must show as
    a count of the run and its reason, one line per reason, the most frequent first."""
    from types import SimpleNamespace

    from tests.conftest import pytest_terminal_summary

    def skipped(reason):
        return SimpleNamespace(longrepr=("tests/browser/conftest.py", 71, f"Skipped: {reason}"))

    stats = {
        "passed": [SimpleNamespace()] * 5,
        "skipped": [skipped(MISSING_MESSAGE)] * 3 + [skipped("no node")],
        "deselected": [SimpleNamespace()] * 7,
    }
    reporter = _Reporter(stats)
    pytest_terminal_summary(reporter, 0, None)
    assert reporter.lines == ["4 of 9 tests skipped", f"3 skipped: {MISSING_MESSAGE}", "1 skipped: no node"]
    quiet = _Reporter({"passed": [SimpleNamespace()]})
    pytest_terminal_summary(quiet, 0, None)
    assert quiet.lines == []
