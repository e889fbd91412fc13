"""The forms real projects write markdown-exec's executed blocks in (projects/forms/: code in the fence, a
session across two pages, named sections and several includes, blocks in admonitions, content tabs,
lists and details), each run, shown and checked against the outputs recorded beside its page, under
MkDocs and under Zensical; a drift fails each build, naming the page, the line and the diff."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FORMS = Path(__file__).parent / "projects" / "forms"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}

# What each page shows, in order: every checked block's output.
SHOWN = {
    "index": [
        "hello from the fence\n",
        "[0, 1, 4, 9]\n",
        'print("printed after the code")\nprinted after the code\n',
        "the hidden line ran: True\n",
        "10\n",
        "same code twice\n",
        "same code twice\n",
        "no state from another block: False\n",
    ],
    "session-1": ["['leaf']\n", "['leaf', 'intermediate']\n", "False\n"],
    "session-2": ["leaf -> intermediate -> grad\n"],
    "sections": ["a square of side 4 covers 16\n", "a square of side 3 covers 9\n9\n", "[('leaf', 2)]\n"],
    "nested": ["in an admonition\n", "first\n", "first then second\n", "in a list\n", "in a details block\n"],
}
UNCHECKED = (
    "left 2 executed blocks to markdown-exec, unchecked: blocks whose output is HTML (html=): 1 (docs/index.md:46); "
    "blocks whose output is Markdown (no result=): 1 (docs/index.md:42)."
)


def copy(folder: Path) -> Path:
    project = folder / "forms"
    shutil.copytree(FORMS, project, ignore=shutil.ignore_patterns(".cache", "site"))
    return project


def build(project: Path, host: str) -> subprocess.CompletedProcess:
    if host in ("mkdocs", "properdocs"):
        command = [sys.executable, "-m", host, "build", "--strict", "-f", "mkdocs.yml", "--site-dir", "site"]
    else:  # Zensical renders its own theme, not MkDocs'; --clean: its page cache does not see a recorded output change
        config = project / "mkdocs.yml"
        config.write_text(config.read_text().replace("theme: {name: mkdocs}", "theme: {name: material}"))
        command = [str(Path(sys.executable).with_name("zensical")), "build", "--clean", "-f", "mkdocs.yml"]
    return subprocess.run(command, cwd=project, env=ENV, capture_output=True, text=True, timeout=300)


def outputs(project: Path, page: str) -> list[str]:
    """The text of each <code> of the page's article that holds an output (not a highlighted source)."""
    written = (project / "site" / ("index.html" if page == "index" else f"{page}/index.html")).read_text()
    codes = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<code[^>]*>(.*?)</code>", written, re.S)]
    return [c for c in codes if c in SHOWN[page]]


HOSTS = ["mkdocs", "properdocs", "zensical"]


@pytest.fixture(scope="module", params=HOSTS)
def good_build(request, tmp_path_factory):
    project = copy(tmp_path_factory.mktemp(request.param))
    return project, build(project, request.param)


def test_every_form_is_run_and_shown_and_the_unchecked_are_named(good_build):
    """Catches a form the host does not run or show (a block in a tab or a list, a pycon, a console
    source), a session that loses its names between pages, sessions or blocks that share a namespace,
    hidden lines not run, a section not dedented, and blocks left unchecked without a word."""
    project, result = good_build
    assert result.returncode == 0, result.stderr
    for page, shown in SHOWN.items():
        assert outputs(project, page) == shown, page
    assert UNCHECKED in result.stderr
    assert not list((project / "site").rglob("*.md.out")) or "zensical" in str(project)


def drifted(project: Path) -> None:
    """One recorded output changed on each page of a form: code in the fence, a session's block on its
    second page, a named section in a session, a block in a content tab."""
    for page, old, new in [
        ("index", "    [0, 1, 4, 9]", "    [0, 1, 4]"),
        ("session-2", "    leaf -> intermediate -> grad", "    leaf -> grad"),
        ("sections", "    a square of side 3 covers 9", "    a square of side 3 covers 6"),
        ("nested", "    first then second", "    second"),
    ]:
        path = project / "docs" / f"{page}.md.out"
        assert old in path.read_text()
        path.write_text(path.read_text().replace(old, new))


@pytest.mark.parametrize("host", ["mkdocs", "properdocs"])
def test_a_drift_fails_the_plugin_hosts_build_naming_each_page_line_and_diff(tmp_path, host):
    """Catches a drift that does not fail the build, or that names no line, no block or no diff, under
    MkDocs or ProperDocs (which hands the plugin mkdocs.yml's path as typed)."""
    project = copy(tmp_path)
    drifted(project)
    result = build(project, host)
    assert result.returncode != 0
    for where, name, recorded, printed in [
        ("docs/index.md:9", "squares", "[0, 1, 4]", "[0, 1, 4, 9]"),
        ("docs/session-2.md:5", "451d5a23", "leaf -> grad", "leaf -> intermediate -> grad"),
        ("docs/sections.md:19", "d5ed77d4", "a square of side 3 covers 6", "a square of side 3 covers 9"),
        ("docs/nested.md:18", "d9882569", "second", "first then second"),
    ]:
        assert (
            f"{where}: block [{name}] printed something other than its recorded output.\n"
            f"    --- {where.split(':')[0]}.out [{name}] (recorded)\n"
        ) in result.stderr
        assert f"    -{recorded}\n    +{printed}\n" in result.stderr


def test_a_drift_stops_the_zensical_build(tmp_path):
    """Catches a drift that Zensical's build swallows (it swallows a formatter's exceptions but one), or
    a build that hangs on the session processes still open when it stops."""
    project = copy(tmp_path)
    drifted(project)
    result = build(project, "zensical")
    assert result.returncode == 1
    assert re.search(r"Problem: docs/[\w-]+\.md:\d+: block \[\w+\] printed something other", result.stderr)


def test_record_writes_the_committed_outputs_and_rewrites_no_page(tmp_path):
    """Catches `python -m fieldnotes record` writing another format, names that differ between runs,
    or a page touched by adoption."""
    project = copy(tmp_path)
    for recorded in (project / "docs").glob("*.md.out"):
        recorded.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "fieldnotes", "record"],
        cwd=project,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for page in (FORMS / "docs").iterdir():
        assert (project / "docs" / page.name).read_text() == page.read_text(), page.name


def test_a_blocks_name_survives_an_edit_elsewhere_and_an_edit_to_its_included_code(tmp_path):
    """Catches a block named by its place on the page (a block added above would make every block below
    lose its recorded output), and a block of includes named by the code they hold (an edit to the
    included file would report a missing output instead of the diff)."""
    project = copy(tmp_path)
    page = project / "docs" / "index.md"
    new_block = '```python exec="on" result="text"\nprint("new")\n```\n'
    page.write_text(page.read_text().replace("# Code in the fence\n", f"# Code in the fence\n\n{new_block}"))
    shapes = project / "src" / "shapes.py"
    shapes.write_text(shapes.read_text().replace("covers {area}", "has area {area}"))
    result = build(project, "mkdocs")
    problems = re.findall(r"WARNING -  fieldnotes: (\S+): (block \[\w+\] [^.\n]*)", result.stderr)
    assert problems == [
        ("docs/index.md:3", "block [da5c6a30] has no recorded output (docs/index"),  # the new block alone
        ("docs/sections.md:9", "block [4f41eac0] has no recorded output (docs/sections"),  # code and an include
        ("docs/sections.md:19", "block [d5ed77d4] printed something other than its recorded output"),
    ]
