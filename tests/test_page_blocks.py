"""Each executed block is the block its page wrote (fieldnotes/features/page_blocks.py, fieldnotes/blocks.py): its
snippet is known from the page's Markdown, never matched back from the code it holds."""

from __future__ import annotations

import re
from collections import Counter

from fieldnotes import blocks
from tests.conftest import ROOT, Project, block

# The same code in two files: each prints its own file's name.
SAME_CODE = "import os\n\nprint(os.path.basename(__file__))\n"
# A block's title: its id (the API index links to it), its download link and the file it names.
TITLE = re.compile(r'<span class="filename" id="([^"]+)"><a href="([^"]+)" download>([^<]+)</a>')


def built_index_page(project: Project, markdown: str) -> str:
    """The page `markdown` built strict beside the API index (which gives each block's title its id)."""
    project.page("index.md", markdown)
    project.feature("api_index", enabled=True)
    project.pages.append("api.md")
    result = project.build()
    assert result.returncode == 0, result.stderr
    return (project.path / "site" / "index.html").read_text()


def test_two_snippets_with_the_same_code_keep_their_own_title_download_and_output(project: Project):
    """Catches a block identified by its code (the plugin mapped code back to a snippet: two files with
    the same code both showed one file's title, link and output, and the other one's drift)."""
    project.snippet("twin/first.py", SAME_CODE, recorded="first.py\n")
    project.snippet("twin/second.py", SAME_CODE, recorded="second.py\n")
    page = built_index_page(project, "# Twins\n\n" + block("twin/first.py") + "\n" + block("twin/second.py"))
    titles = TITLE.findall(page)
    assert titles == [
        ("ex-twin-first", "snippets/twin/first.py", "snippets/twin/first.py"),
        ("ex-twin-second", "snippets/twin/second.py", "snippets/twin/second.py"),
    ]
    outputs = re.findall(r"<code>(first|second)\.py\n</code>", page)
    assert outputs == ["first", "second"]


def test_a_block_names_its_own_line_when_it_drifts(project: Project):
    """Catches a drift reported at the line of another block that includes the same snippet's code."""
    project.snippet("twin/first.py", SAME_CODE, recorded="first.py\n")
    project.snippet("twin/second.py", SAME_CODE, recorded="not what it prints\n")
    page = "---\ntitle: Twins\n---\n# Twins\n\n" + block("twin/first.py") + "\n" + block("twin/second.py")
    project.page("index.md", page)
    result = project.build()
    assert result.returncode != 0
    lines = page.splitlines()
    second, first = lines.index('--8<-- "twin/second.py"') + 1, lines.index('--8<-- "twin/first.py"') + 1
    assert f"docs/index.md:{second}: snippets/twin/second.py printed something other" in result.stderr
    assert f"docs/index.md:{first}:" not in result.stderr


class _CountingFence:
    """blocks' fence pattern, counting the pages it is asked to read (by their Markdown)."""

    def __init__(self, pattern: re.Pattern) -> None:
        self.pattern = pattern
        self.reads: Counter[str] = Counter()

    def finditer(self, markdown: str):
        self.reads[markdown] += 1
        return self.pattern.finditer(markdown)


def test_each_page_is_parsed_once_per_build(monkeypatch, tmp_path):
    """Catches a consumer that parses a page's Markdown again instead of reading the build's parse (the
    runs' order and limits, the downloads, the page notebooks, the API index, the versions page, the
    fence): the real site is built in this process, running nothing, and every read of a page by the
    blocks' fence pattern is counted, however the parser is reached."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    counting = _CountingFence(blocks._FENCE)
    monkeypatch.setattr(blocks, "_FENCE", counting)
    monkeypatch.setenv("FIELDNOTES_EXECUTE", "false")  # the parse is the same; nothing needs to run
    build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True))
    pages = {p.read_text(encoding="utf-8"): p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert set(pages) <= set(counting.reads), "a page of docs/ was never parsed"
    twice = [pages.get(markdown, markdown[:40]) for markdown, n in counting.reads.items() if n > 1]
    assert not twice, f"parsed more than once per build: {twice}"


def test_one_snippet_on_two_pages_runs_under_each_pages_limit(project: Project):
    """Catches runs keyed by snippet alone: the page with the short limit got the other page's long one
    (whichever page came last), so its time limit was never applied."""
    project.snippet("slow.py", "import time\n\ntime.sleep(3)\nprint('done')\n", recorded="done\n")
    patient = block("slow.py").replace('exec="on"', 'exec="on" timeout="30"')
    hasty = block("slow.py").replace('exec="on"', 'exec="on" timeout="1"')
    project.page("index.md", "# Hasty\n\n" + hasty)
    project.page("patient.md", "# Patient\n\n" + patient)
    result = project.build()
    assert result.returncode != 0
    assert "docs/index.md:4: snippets/slow.py did not finish within 1 s" in result.stderr, result.stderr
    assert "did not finish within 30 s" not in result.stderr


def test_a_block_titled_by_its_include_alone_gets_its_download_link(project: Project):
    """Catches a block whose title must repeat its include's path by hand: without `title=`, or with
    the include in single quotes (pymdownx.snippets takes both), the block lost its title, its download
    link and the id the API index links to."""
    project.snippet("plain.py", "print('plain')\n", recorded="plain\n")
    project.snippet("quoted.py", "print('quoted')\n", recorded="quoted\n")
    untitled = '```python exec="on" source="above" result="text"\n--8<-- "plain.py"\n```\n'
    quoted = "```python exec='on' source='above' result='text'\n--8<-- 'quoted.py'\n```\n"
    page = built_index_page(project, "# Untitled\n\n" + untitled + "\n" + quoted)
    titles = TITLE.findall(page)
    assert titles == [
        ("ex-plain", "snippets/plain.py", "snippets/plain.py"),
        ("ex-quoted", "snippets/quoted.py", "snippets/quoted.py"),
    ]
    assert re.findall(r"<code>(plain|quoted)\n</code>", page) == ["plain", "quoted"]
