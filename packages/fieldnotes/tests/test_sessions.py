"""Sessions run as markdown-exec runs them (fieldnotes/sessions.py): one namespace per `session=`, in the
order the blocks come, each block's output captured and its time limit applied on its own; blocks
without a session alone; runs reused from the store only while their session up to them is unchanged."""

from __future__ import annotations

import os
import time

import pytest

from fieldnotes import runner
from fieldnotes.cache import Store
from fieldnotes.sessions import Block, SessionEnded, Sessions


@pytest.fixture
def sessions(tmp_path):
    runner.start_server(())
    made = []

    def make(reuse: bool = False) -> Sessions:
        made.append(Sessions(tmp_path, Store(tmp_path, reuse=reuse, environment="test")))
        return made[-1]

    yield make
    for each in made:
        each.close()


def outputs(sessions: Sessions, blocks: list[tuple[str | None, str]], timeout: float = 30) -> list[str]:
    """Each block's output, submitted in order; a block's name is its session and number."""
    futures = [sessions.submit(s, Block(code, f"<{s} {n}>", timeout)) for n, (s, code) in enumerate(blocks)]
    return [future.result().output for future in futures]


def test_a_sessions_blocks_share_one_namespace_in_order_and_print_on_their_own(sessions):
    """Catches a block run in a process (or namespace) of its own, blocks run out of order, and one
    capture shared by a session's blocks (a block's output holding an earlier block's too)."""
    got = outputs(
        sessions(),
        [("a", "x = 1\nprint('a:', x)\n"), ("a", "x += 1\nprint('a:', x)\n"), ("a", "x *= 10\nprint('a:', x)\n")],
    )
    assert got == ["a: 1\n", "a: 2\n", "a: 20\n"]


def test_sessions_are_isolated_from_each_other_and_a_block_without_one_runs_alone(sessions):
    """Catches one namespace (or process) for every session, and a block without a session that sees
    another block's names (markdown-exec gives such a block a namespace of its own)."""
    got = outputs(
        sessions(),
        [
            ("a", "import os\nx = 'a'\nos.environ['MARK'] = 'a'\n"),
            ("b", "import os\nprint('x' in globals(), os.environ.get('MARK'))\n"),
            (None, "y = 1\n"),
            (None, "print('y' in globals())\n"),
            ("a", "print(x, os.environ['MARK'])\n"),
        ],
    )
    assert got == ["", "False None\n", "", "False\n", "a a\n"]


def test_a_block_that_hangs_times_out_alone_ends_its_session_and_names_itself(sessions):
    """Catches a time limit applied to the session as a whole (the hanging block would get the others'
    time), a timeout that does not name its block, a session process left running after it, and later
    blocks of the session run in a namespace that lacks what the hanging block was to define."""
    made = sessions()
    first = made.submit("s", Block("import os\nprint(os.getpid())\n", "<s 0>", 30))
    hangs = made.submit("s", Block("import time\nprint('started', flush=True)\ntime.sleep(600)\n", "<s 1>", 1))
    after = made.submit("s", Block("print('after')\n", "<s 2>", 30))
    other = made.submit("t", Block("print('other session')\n", "<t 0>", 30))
    pid = int(first.result().output)
    started = time.monotonic()
    with pytest.raises(runner.SnippetTimeout) as timeout:
        hangs.result()
    assert time.monotonic() - started < 30
    assert str(timeout.value) == "<s 1> did not finish within 1 s and was killed"
    assert timeout.value.partial_output == "started\n"
    with pytest.raises(SessionEnded, match=r"<s 2> was not run: <s 1> did not finish within 1 s"):
        after.result()
    assert other.result().output == "other session\n"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_traceback_shows_the_sessions_frames_and_not_the_libraries(sessions):
    """Catches a traceback that loses the frame of a function an earlier block defined, or that keeps
    the standard library's frames (their paths differ between machines)."""
    got = outputs(
        sessions(),
        [("s", "import json\n\ndef load(text):\n    return json.loads(text)\n"), ("s", "load('{')\n")],
    )
    assert got[1].startswith(
        "Traceback (most recent call last):\n  File \"<s 1>\", line 1, in <module>\n    load('{')\n"
        '  File "<s 0>", line 4, in load\n    return json.loads(text)\n'
    )
    assert "json/" not in got[1]
    assert got[1].endswith(
        "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n"
    )


def session_counting_runs(tmp_path, second: str) -> list[tuple[str, str]]:
    """A session of three blocks, each of which appends its name to ran.txt when it runs."""
    mark = "open('ran.txt', 'a').write('{}\\n')\n"
    return [
        ("s", mark.format(1) + "from helper import scale\nx = scale(1)\nprint(x)\n"),
        ("s", mark.format(2) + second),
        ("s", mark.format(3) + "print(x + 1)\n"),
    ]


def runs_of(tmp_path) -> list[str]:
    ran = tmp_path / "ran.txt"
    found = ran.read_text().split() if ran.exists() else []
    ran.unlink(missing_ok=True)
    return found


def test_a_sessions_runs_are_reused_until_it_or_what_it_imports_changes(sessions, tmp_path):
    """Catches a key that covers the block alone (an edit to block 2 would reuse block 3's stale
    output), a key that leaves out the project's modules a block imports, and a block run after a
    stored one without the stored one run again first (its namespace would lack `x`)."""
    (tmp_path / "helper.py").write_text("def scale(v):\n    return 10 * v\n")
    blocks = session_counting_runs(tmp_path, "x += 1\nprint(x)\n")
    assert outputs(sessions(reuse=True), blocks) == ["10\n", "11\n", "12\n"]
    assert runs_of(tmp_path) == ["1", "2", "3"]

    assert outputs(sessions(reuse=True), blocks) == ["10\n", "11\n", "12\n"]
    assert runs_of(tmp_path) == []  # all stored: no process started

    edited = session_counting_runs(tmp_path, "x += 2\nprint(x)\n")
    assert outputs(sessions(reuse=True), edited) == ["10\n", "12\n", "13\n"]
    assert runs_of(tmp_path) == ["1", "2", "3"]  # block 1 ran again, for the namespace blocks 2 and 3 need

    (tmp_path / "helper.py").write_text("def scale(v):\n    return 100 * v\n")
    assert outputs(sessions(reuse=True), edited) == ["100\n", "102\n", "103\n"]
    assert runs_of(tmp_path) == ["1", "2", "3"]


def test_a_run_that_is_not_kept_is_not_reused(sessions, tmp_path):
    """Catches a drifted run stored all the same (the next build would show it without running it)."""
    block = Block("open('ran.txt', 'a').write('1\\n')\n", "<once>", 30)
    for _ in range(2):
        sessions(reuse=True).submit(None, block, keep=lambda run: False).result()
    assert runs_of(tmp_path) == ["1", "1"]


def test_an_ended_idle_session_runs_its_blocks_again_before_its_next(sessions, tmp_path):
    """Catches a session whose process was ended to bound the live processes and whose next block then
    runs in an empty namespace."""
    made = sessions()
    made.live = 1
    got = [
        made.submit("a", Block("x = 'a'\n", "<a 0>", 30)).result().output,
        made.submit("b", Block("x = 'b'\n", "<b 0>", 30)).result().output,  # ends a's process
        made.submit("a", Block("print(x)\n", "<a 1>", 30)).result().output,
    ]
    assert got == ["", "", "a\n"]
