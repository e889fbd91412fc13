"""A rebuild reuses what it made of unchanged input (fieldnotes' `Store.memo`): each example's rendered
block and each page's search entries. Reuse must never show what a fresh build would not: a rebuild from
the cache reuses, and writes the same site; a change to an input a reused result is keyed by shows on
the next rebuild. (The exercise's .ipynb is reused the same way; here it is checked to be the same file
for the same notebook.)

Throwaway projects with execution off (pages show the recorded outputs), so no torch is imported and a
build takes about a second, and with `cache: true` whatever FIELDNOTES_CACHE says. The links
(tests/test_links.py) and the API index (tests/test_api_index.py) are tested where they are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from fieldnotes.features.notebook_pages import to_ipynb
from tests.conftest import Project, block

PAGE = "# Demo\n\nSome prose about leaves.\n\n## The example\n\n" + block("demo/show.py")


def files_of(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def search_entries(project: Project) -> list[dict]:
    return json.loads((project.path / "site" / "search" / "search_index.json").read_text())["docs"]


def demo(project: Project, recorded: str = "value 1\n") -> Project:
    project.set_option("fieldnotes", execute=False, cache=True)
    project.snippet("demo/show.py", "print('value', 1)\n", recorded=recorded)
    project.page("index.md", PAGE)
    return project


def build_ok(project: Project) -> str:
    result = project.build()
    assert result.returncode == 0, result.stderr
    return (project.path / "site" / "index.html").read_text(encoding="utf-8")


def test_a_rebuild_from_the_cache_writes_the_same_site(project: Project):
    """Catches a rebuild that reuses nothing (a key that changes from one build to the next: the cache
    gains entries), and a reused result that differs from the one it stands for: a block rendered
    differently, or a page's search entries missing, doubled or out of order in the search index."""
    demo(project)
    build_ok(project)
    first = files_of(project.path / "site")
    stored = files_of(project.path / ".cache" / "fieldnotes")
    # What is kept: a rendered block ("html") and a page's search entries ("entries"), besides the run.
    assert {"html", "entries"} <= {key for data in stored.values() for key in json.loads(data)}
    build_ok(project)
    assert files_of(project.path / ".cache" / "fieldnotes") == stored, "the rebuild reused nothing"
    assert files_of(project.path / "site") == first
    # The theme's index has one entry per section of the page: its title's and its heading's.
    entries = search_entries(project)
    assert [(e["location"], e["title"]) for e in entries] == [("", "Demo"), ("#the-example", "The example")]
    assert "value 1" in entries[1]["text"]


def test_a_new_output_of_the_same_code_is_shown(project: Project):
    """Catches a rendered block reused by its code alone: a helper or a torch upgrade changes what the same
    code prints (here, the recorded output of an execution-off build changes)."""
    demo(project, recorded="value 1\n")
    assert "value 1" in build_ok(project)
    (project.path / "snippets" / "demo" / "show.out").write_text("value 2\n")
    page = build_ok(project)
    assert "value 2" in page and "value 1" not in page


def test_a_changed_markdown_setting_renders_the_blocks_again(project: Project):
    """Catches a rendered block reused across a change of mkdocs.yml's Markdown settings: line numbers
    switched on must show on every executed block."""
    demo(project)
    assert "linenos" not in build_ok(project)
    extensions = project.config["markdown_extensions"]
    extensions[extensions.index("pymdownx.highlight")] = {"pymdownx.highlight": {"linenums": True}}
    assert "linenos" in build_ok(project)


def test_the_search_index_follows_an_edit_of_the_prose_and_of_the_front_matter(project: Project):
    """Catches search entries reused by the page's address (or by its HTML alone): edited prose must be
    found, and a search boost set in the front matter must reach the page's entries."""
    demo(project)
    build_ok(project)
    (project.path / "docs" / "index.md").write_text(PAGE.replace("about leaves", "about hooks"))
    build_ok(project)
    texts = " ".join(entry["text"] for entry in search_entries(project))
    assert "about hooks" in texts and "about leaves" not in texts
    (project.path / "docs" / "index.md").write_text("---\nsearch:\n  boost: 3\n---\n\n" + PAGE)
    build_ok(project)
    assert {entry.get("boost") for entry in search_entries(project)} == {3}


def test_the_exercise_notebook_download_is_the_same_file_for_the_same_notebook():
    """Catches random cell ids (jupytext's default) in the exercise's .ipynb: every cold build would give
    readers a different file for the same notebook."""
    source = "# %% [markdown]\n# A task\n\n# %%\nprint(1)\n"
    assert to_ipynb(source) == to_ipynb(source)


def test_blocks_rendered_anew_beside_reused_ones_keep_their_ids_unique(project: Project):
    """Catches reusing a block whose HTML holds ids: markdown-exec numbers them with a counter of the build
    (here, a tabbed block's tabs), so a block rendered anew in the next build would take the ids of the
    block reused from the first."""
    demo(project)
    project.config["markdown_extensions"].append({"pymdownx.tabbed": {"alternate_style": True}})
    project.snippet("demo/other.py", "print('other', 2)\n", recorded="other 2\n")
    tabbed = [block(s).replace('source="above"', 'source="tabbed-left"') for s in ("demo/show.py", "demo/other.py")]
    (project.path / "docs" / "index.md").write_text("# Demo\n\n" + "\n".join(tabbed))
    build_ok(project)
    (project.path / "snippets" / "demo" / "other.out").write_text("other 3\n")  # this block is rendered anew
    page = build_ok(project)
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert "other 3" in page and any("tabbed" in i for i in ids)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_cache_false_reuses_nothing(project: Project):
    """Catches `cache: false` (FIELDNOTES_CACHE=false, how a contributor rules out a stale result) still
    reusing what a build made: nothing is kept, so nothing can be reused."""
    demo(project)
    project.set_option("fieldnotes", execute=False, cache=False)
    build_ok(project)
    assert not files_of(project.path / ".cache" / "fieldnotes")
