"""A page's recorded outputs, in one file beside it (fieldnotes/page_outputs.py): read back exactly as
written, readable as a diff, each block named so that an edit elsewhere on the page keeps its name."""

from __future__ import annotations

from fieldnotes.page_outputs import Section, block_name, drift, parse, read, render, write
from fieldnotes.runner import Run

OUTPUTS = {
    "plain": "hello\n",
    "blank-lines": "a\n\n\nb\n\n",
    "no-newline": "a\nb",
    "empty": "",
    "looks-like-a-header": "[other] x\n\\ no newline at end of output\n",
    "indented": "    four\n\tthen a tab\n",
}


def test_every_output_reads_back_as_it_was_written():
    """Catches an output whose blank lines, missing last newline, emptiness or header-like lines are
    changed by a round trip through the file (a block would then drift right after `record`)."""
    text = render("docs/page.md", [Section(name, "print()", output) for name, output in OUTPUTS.items()])
    assert parse(text) == OUTPUTS


def test_blank_output_lines_survive_an_editor_that_strips_trailing_spaces():
    """Catches a reader that takes an unindented blank line for the end of a block's output."""
    text = render("docs/page.md", [Section("a", "print()", "x\n\ny\n"), Section("b", "print()", "z\n")])
    stripped = "\n".join(line.rstrip() for line in text.split("\n"))
    assert parse(stripped) == {"a": "x\n\ny\n", "b": "z\n"}


def test_the_file_reads_as_the_blocks_names_first_lines_and_outputs():
    """Catches a format a reviewer cannot read in a diff: no name or code beside an output, hidden lines
    shown as the block's first line."""
    hidden = "# markdown-exec: hide\nprint('hello')\n"
    sections = [Section("greet", hidden, "hello\n"), Section("3f2a9c1e", "x = 1", "")]
    assert render("docs/guide.md", sections) == (
        "# The outputs of guide.md's executed blocks, recorded by `python -m fieldnotes record`.\n"
        "# Under each block's name (its id=, else a digest of its code), what it printed, indented by four spaces.\n"
        "\n"
        "[greet] print('hello')\n"
        "    hello\n"
        "\n"
        "[3f2a9c1e] x = 1\n"
    )


def test_a_blocks_name_is_its_id_else_its_codes_digest_numbered_on_the_page():
    """Catches a name that changes when another block of the page changes (a position on the page), an
    id= ignored, and two blocks of the same code given one name."""
    seen: dict[str, int] = {}
    first = block_name("", "print(1)\n", seen)
    assert block_name("", "print(2)\n", seen) != first
    assert block_name("", "print(1)\n", seen) == f"{first}-2"
    assert block_name("greet", "print(1)\n", seen) == "greet"
    assert block_name("", "print(1)\n", {}) == first  # the same code on a page where other blocks changed
    assert len(first) == 8 and int(first, 16) >= 0


def test_write_records_only_the_blocks_on_the_page_and_says_whether_it_changed(tmp_path):
    """Catches a block's output left behind after the block left the page, a file rewritten when
    nothing changed, and a file kept for a page that has no such blocks any more."""
    (tmp_path / "docs").mkdir()
    assert write(tmp_path, "docs/page.md", [Section("a", "print(1)", "1\n"), Section("b", "print(2)", "2\n")])
    assert not write(tmp_path, "docs/page.md", [Section("a", "print(1)", "1\n"), Section("b", "print(2)", "2\n")])
    assert write(tmp_path, "docs/page.md", [Section("a", "print(1)", "1\n")])
    assert read(tmp_path, "docs/page.md") == {"a": "1\n"}
    assert write(tmp_path, "docs/page.md", [])
    assert not (tmp_path / "docs/page.md.out").exists()
    assert read(tmp_path, "docs/page.md") is None


def test_a_drift_shows_the_diff_and_names_the_outputs_file_the_block_and_the_command():
    """Catches a drift reported without its diff, or without what to review and run to accept it."""
    problem = drift("docs/page.md", "greet", {"greet": "hello\n"}, Run("hullo\n", 0), "Python 3.11.7")
    assert problem == (
        "block [greet] printed something other than its recorded output.\n"
        "    --- docs/page.md.out [greet] (recorded)\n"
        "    +++ docs/page.md [greet] (printed by Python 3.11.7)\n"
        "    @@ -1 +1 @@\n"
        "    -hello\n"
        "    +hullo\n"
        "If the new output is intended, re-record it with: python -m fieldnotes record docs/page.md, "
        "and review the diff of docs/page.md.out."
    )
    assert drift("docs/page.md", "greet", {"greet": "hello\n"}, Run("hello\n", 0), "Python") is None


def test_a_block_with_no_recorded_output_says_what_it_printed_and_how_to_record_it():
    """Catches a missing output taken as an empty one (a new block would pass, or fail with no hint)."""
    missing = drift("docs/page.md", "new", {"old": ""}, Run("", 0), "Python", "make update-outputs SNIPPET={snippet}")
    assert missing == (
        "block [new] has no recorded output (docs/page.md.out has no [new]).\nIt printed:\n\n"
        "If that is right, record it with: make update-outputs SNIPPET=docs/page.md"
    )
    assert "docs/page.md.out is missing" in drift("docs/page.md", "new", None, Run("1\n", 0), "Python")


def test_a_block_that_raised_unexpectedly_says_so():
    """Catches an exception reported as an ordinary drift, where the recorded output shows none."""
    problem = drift("docs/page.md", "a", {"a": "1\n"}, Run("Traceback (most recent call last):\n", 1), "Python")
    assert problem.startswith("block [a] raised an exception (exit code 1); its recorded output shows none.")
