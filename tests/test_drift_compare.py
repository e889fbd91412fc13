"""`drift()` (fieldnotes/examples.py), the comparison the build and the tests share, against outputs that
differ from the recorded one by the least a drift can: a space, a newline, a line's place, a digit.
The tests that run every snippet compare through `drift()` itself, so it needs an oracle of its own:
here each expected message is written out (issue 33)."""

from __future__ import annotations

import importlib.metadata
import locale
from pathlib import Path

import pytest

from fieldnotes.examples import Example, drift, project_examples, torch_version
from fieldnotes.runner import Run

SNIPPET = "snippets/leaves/seed.py"


def example(tmp_path: Path, recorded: str | None) -> Example:
    (tmp_path / "snippets" / "leaves").mkdir(parents=True, exist_ok=True)
    (tmp_path / SNIPPET).write_text("print('x')\n")
    if recorded is not None:
        (tmp_path / "snippets" / "leaves" / "seed.out").write_text(recorded)
    return Example(tmp_path, SNIPPET)


def diff_lines(message: str) -> list[str]:
    """The unified diff's -/+ lines of a drift message (indented by four spaces in it)."""
    lines = [line.removeprefix("    ") for line in message.splitlines() if line.startswith("    ")]
    return [line for line in lines if line[:1] in "-+" and not line.startswith(("---", "+++"))]


@pytest.mark.parametrize(
    ("recorded", "printed", "changed"),
    [
        ("a b\n", "a  b\n", ["-a b", "+a  b"]),
        ("tensor(2.)\n", "tensor(2.) \n", ["-tensor(2.)", "+tensor(2.) "]),
        ("x\ny\n", "x\ny\n\n", ["+"]),
        ("x\ny\n", "x\n\ny\n", ["+"]),
        ("first\nsecond\nthird\n", "second\nfirst\nthird\n", ["+second", "-second"]),
        ("tensor([1., 2.])\n", "tensor([1., 3.])\n", ["-tensor([1., 2.])", "+tensor([1., 3.])"]),
        ("True None\n", "True\nNone\n", ["-True None", "+True", "+None"]),
    ],
    ids=["space", "trailing-space", "trailing-newline", "blank-line", "moved-line", "number", "split-line"],
)
def test_the_least_change_is_a_drift_and_its_message_shows_it(tmp_path, recorded, printed, changed):
    """Catches a comparison that forgives what a reader would see: `.split()`ed or `.strip()`ed text,
    sorted lines, or numbers left out; and a message that no longer shows the lines that differ."""
    message = drift(example(tmp_path, recorded), Run(printed, 0), "torch 2.99.0")
    if message is None:
        pytest.fail(f"{printed!r} for the recorded {recorded!r} is not reported as a drift", pytrace=False)
    assert sorted(diff_lines(message)) == sorted(changed), message


def test_a_drift_message_says_what_printed_it_and_how_to_record_it(tmp_path):
    """Catches a message that loses its diff's file names, the torch that printed it, or the command
    that records just this example."""
    message = drift(example(tmp_path, "2\n"), Run("3\n", 0), "torch 2.99.0", "make update-outputs SNIPPET={snippet}")
    assert message == (
        "snippets/leaves/seed.py printed something other than its recorded output.\n"
        "    --- snippets/leaves/seed.out (recorded)\n"
        "    +++ snippets/leaves/seed.py (printed by torch 2.99.0)\n"
        "    @@ -1 +1 @@\n"
        "    -2\n"
        "    +3\n"
        "If the new output is intended (say, after a torch upgrade), re-record it with: "
        "make update-outputs SNIPPET=snippets/leaves/seed.py, and review the diff of snippets/leaves/seed.out."
    )


def test_without_a_printer_the_message_names_the_installed_torch(tmp_path):
    """Catches a default that names no torch, or another one than is installed."""
    message = drift(example(tmp_path, "2\n"), Run("3\n", 0))
    installed = importlib.metadata.version("torch")
    assert f"    +++ snippets/leaves/seed.py (printed by torch {installed})\n" in message
    record = "python -m fieldnotes.record snippets/leaves/seed.py"
    assert f"(say, after a torch upgrade), re-record it with: {record}," in message
    assert torch_version() == installed


def test_the_printer_named_in_the_advice_is_its_first_word(tmp_path):
    """Catches advice that names the whole printer ("a numpy 2.0 upgrade") or always torch."""
    message = drift(example(tmp_path, "2\n"), Run("3\n", 0), "numpy 2.0")
    assert "(say, after a numpy upgrade)" in message


def test_an_unexpected_exception_is_said_first(tmp_path):
    """Catches a run that raised, where the record shows no traceback, reported as a plain difference
    (or with the wrong exit code)."""
    message = drift(example(tmp_path, "ok\n"), Run("Traceback (most recent call last):\nValueError\n", 2))
    assert message.splitlines()[0] == (
        "snippets/leaves/seed.py raised an exception (exit code 2); its recorded output shows none."
    )


@pytest.mark.parametrize(
    ("recorded", "exit_code"),
    [("Traceback (most recent call last):\nValueError: a\n", 1), ("ok\n", 0)],
    ids=["recorded-traceback", "no-exception"],
)
def test_a_different_output_without_a_new_exception_is_a_plain_difference(tmp_path, recorded, exit_code):
    """Catches an exception the record shows (the example is meant to raise) reported as unexpected, and
    a run that exited 0 reported as raising."""
    message = drift(example(tmp_path, recorded), Run("something else\n", exit_code))
    assert message.splitlines()[0] == "snippets/leaves/seed.py printed something other than its recorded output."


def test_an_equal_output_is_no_drift_even_when_it_raised(tmp_path):
    """Catches a drift reported for the recorded output itself, a traceback included."""
    recorded = "Traceback (most recent call last):\nValueError: a\n"
    assert drift(example(tmp_path, recorded), Run(recorded, 1)) is None
    assert drift(example(tmp_path, "a\n\n"), Run("a\n\n", 0)) is None


def test_a_missing_record_says_so_and_shows_what_it_printed(tmp_path):
    """Catches a missing `.out` passed as no drift, or reported without the output or the command."""
    message = drift(example(tmp_path, None), Run("one\nMAX\n", 0))
    assert message == (
        "snippets/leaves/seed.py has no recorded output (snippets/leaves/seed.out is missing).\n"
        "It printed:\n    one\n    MAX\n"
        "If that is right, record it with: python -m fieldnotes.record snippets/leaves/seed.py"
    )


def test_recording_writes_the_output_only_when_it_changed(tmp_path):
    """Catches `record` that reports no change while the file changes (or the other way round)."""
    ex = example(tmp_path, "old\n")
    out = tmp_path / "snippets" / "leaves" / "seed.out"
    assert ex.record(Run("new\n", 0)) is True
    assert out.read_text() == "new\n"
    assert ex.record(Run("new\n", 0)) is False
    fresh = example(tmp_path / "fresh", None)
    assert fresh.recorded() is None
    assert fresh.record(Run("made\n", 0)) is True
    assert (tmp_path / "fresh" / "snippets" / "leaves" / "seed.out").read_text() == "made\n"


def test_the_examples_are_every_snippet_but_the_helpers(tmp_path):
    """Catches a helper (`_x.py`) taken for an example, a folder left out, or an order that varies."""
    for name in ["b/two.py", "a/one.py", "a/_helper.py", "top.py", "a/notes.txt"]:
        (tmp_path / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "snippets" / name).write_text("")
    found = [ex.snippet for ex in project_examples(tmp_path)]
    assert found == ["snippets/a/one.py", "snippets/b/two.py", "snippets/top.py"]
    assert all(ex.root == tmp_path for ex in project_examples(tmp_path))


@pytest.fixture
def ascii_locale():
    """A locale whose default encoding is ASCII, as a machine set up with another encoding than UTF-8."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


def test_outputs_are_read_and_recorded_as_utf_8_whatever_the_locale(tmp_path, ascii_locale):
    """Catches a `.out` read or written in the locale's encoding: on another machine a recorded "×"
    would fail to read, or be recorded as other bytes."""
    ex = example(tmp_path, None)
    (tmp_path / "snippets" / "leaves" / "seed.out").write_bytes("2 × 3\n".encode())
    assert drift(ex, Run("2 × 3\n", 0), "torch 2.99.0") is None
    assert ex.record(Run("é\n", 0)) is True
    assert (tmp_path / "snippets" / "leaves" / "seed.out").read_bytes() == "é\n".encode()
