"""Each executed block is the block its page wrote (fieldnotes/features/page_blocks.py, fieldnotes/blocks.py): its
snippet is known from the page's Markdown, never matched back from the code it holds."""

from __future__ import annotations

import re

from tests.conftest import Project, block

# The same code in two files: each prints its own file's name.
SAME_CODE = "import os\n\nprint(os.path.basename(__file__))\n"


def test_two_snippets_with_the_same_code_keep_their_own_title_download_and_output(project: Project):
    """Catches a block identified by its code (the plugin mapped code back to a snippet: two files with
    the same code both showed one file's title, link and output, and the other one's drift)."""
    project.snippet("twin/first.py", SAME_CODE, recorded="first.py\n")
    project.snippet("twin/second.py", SAME_CODE, recorded="second.py\n")
    project.page("index.md", "# Twins\n\n" + block("twin/first.py") + "\n" + block("twin/second.py"))
    project.feature("api_index", enabled=True)  # the ids the API index links to
    project.pages.append("api.md")
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.path / "site" / "index.html").read_text()
    titles = re.findall(r'<span class="filename" id="([^"]+)"><a href="([^"]+)" download>([^<]+)</a>', page)
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
