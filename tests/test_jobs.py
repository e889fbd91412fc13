"""The one Scheduler of a build's runs (fieldnotes/jobs.py): how many run at once, and which starts
first when a worker is free."""

from __future__ import annotations

import threading

from fieldnotes.jobs import FIRST, Scheduler, preload
from tests.conftest import ROOT


def _held(scheduler: Scheduler) -> threading.Event:
    """Take the scheduler's only worker until the event is set."""
    started, release = threading.Event(), threading.Event()
    scheduler.submit_call(lambda: started.set() or release.wait(60))
    assert started.wait(60)
    return release


def test_the_slowest_declared_run_starts_first_and_equals_keep_their_order(tmp_path):
    """Catches runs started in the order asked whatever their priority (a page's slow example, asked
    last, would start last and end the build alone), or equal priorities no longer in the order asked
    (with nothing known, the order of the pages)."""
    scheduler = Scheduler(tmp_path, jobs=1, preload=())
    started: list[str] = []
    release = _held(scheduler)
    futures = [
        scheduler.submit_call(lambda name=name: started.append(name), priority)
        for name, priority in [("a", 20), ("b", 20), ("slow", 180), ("c", 20), ("notebook", FIRST)]
    ]
    release.set()
    for future in futures:
        future.result(timeout=60)
    assert started == ["notebook", "slow", "a", "b", "c"]
    scheduler.close()


def test_a_snippets_priority_is_its_time_limit(tmp_path):
    """Catches a snippet run whose page declares it slow (timeout="180") queued behind the quick ones."""
    (tmp_path / "snippets").mkdir()
    for name in ("quick", "slow"):
        (tmp_path / "snippets" / f"{name}.py").write_text(f"open('order', 'a').write('{name}\\n')\n")
    scheduler = Scheduler(tmp_path, jobs=1, preload=())
    release = _held(scheduler)
    quick = scheduler.submit("snippets/quick.py", 20)
    slow = scheduler.submit("snippets/slow.py", 180)
    release.set()
    quick.result(timeout=60), slow.result(timeout=60)
    assert (tmp_path / "order").read_text() == "slow\nquick\n"
    scheduler.close()


def test_no_more_runs_at_once_than_workers(tmp_path):
    """Catches a scheduler that starts a worker per run (every example at once: torch's threads fight
    over the cores)."""
    scheduler = Scheduler(tmp_path, jobs=2, preload=())
    lock = threading.Lock()
    running, most = [0], [0]
    gate = threading.Barrier(2, timeout=60)

    def work() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        gate.wait()  # two at once must be possible, or this never returns
        with lock:
            running[0] -= 1

    for future in [scheduler.submit_call(work) for _ in range(6)]:
        future.result(timeout=60)
    assert most[0] == 2
    scheduler.close()


def test_examples_are_asked_for_in_the_order_the_pages_show_them():
    """Catches examples asked for in the order of their paths: the first page's runs (leaves/) would come
    after every faq/ run, and MkDocs would render every page at the end instead of one by one. A snippet
    shown under two limits is asked for under each, once."""
    from fieldnotes import blocks
    from fieldnotes.examples import Example
    from fieldnotes.runs import run_order

    def page(*snippets: str) -> blocks.Page:
        return blocks.parse("".join(f'```python exec="on"\n--8<-- "{s}"\n```\n\n' for s in snippets))

    examples = [Example(ROOT, f"snippets/{name}.py") for name in ("faq/a", "faq/b", "leaves/c", "other/d")]
    slow = blocks.parse('```python exec="on" timeout="60"\n--8<-- "leaves/c.py"\n```\n')
    pages = [page("leaves/c.py"), page("faq/b.py", "leaves/c.py"), slow, page("faq/a.py")]
    ordered = run_order(pages, examples, 20.0)
    assert ordered == [
        ("snippets/leaves/c.py", 20.0),
        ("snippets/faq/b.py", 20.0),
        ("snippets/leaves/c.py", 60.0),
        ("snippets/faq/a.py", 20.0),
        ("snippets/other/d.py", 20.0),
    ]


def test_the_server_preloads_torch_only_for_examples_that_import_it(tmp_path):
    """Catches torch preloaded for a project whose examples never import it (each build that runs one
    would wait for torch's import), and torch not preloaded when a helper beside the examples imports it
    (every run would import it again), or with the torch features off."""
    snippets = tmp_path / "snippets" / "lesson"
    snippets.mkdir(parents=True)
    (snippets / "counts.py").write_text("import _helper\nprint(_helper.N)  # torch is not imported\n")
    (snippets / "_helper.py").write_text("N = 1\n")
    assert preload(tmp_path, torch=True) == ()
    (snippets / "_helper.py").write_text("from torch import nn\n\nN = 1\n")
    assert preload(tmp_path, torch=True) == ("torch",)
    assert preload(tmp_path, torch=False) == ()
