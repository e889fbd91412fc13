"""The Markdown extension (fieldnotes/extension.py) on its own, in plain `markdown.Markdown` with no MkDocs
build: an executed block is recognised at any indentation, run, compared with its recorded output and
shown; a drift, a false claim or a block of code with no recorded output raises `Problem`, the exception
superfences lets through (a host that runs no plugin, Zensical, stops on it)."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import pytest

from fieldnotes.extension import Problem

EXTENSIONS = ["admonition", "attr_list", "pymdownx.superfences", "pymdownx.tabbed", "pymdownx.snippets"]


def block(snippet: str, indent: str = "") -> str:
    fence = f'```python exec="on" source="above" result="text"\n--8<-- "{snippet}"\n```\n'
    return "".join(indent + line if line.strip() else line for line in fence.splitlines(keepends=True))


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - fieldnotes: {timeout: 30}\n")
    for name, code in {"one": "print('one')", "two": "print('two')", "twin": "print('two')"}.items():
        (tmp_path / "snippets" / f"{name}.py").write_text(code + "\n")
        (tmp_path / "snippets" / f"{name}.out").write_text(f"{name}\n".replace("twin", "two"))
    monkeypatch.chdir(tmp_path)  # pymdownx.snippets' base_path and the extension's root are relative to it
    return tmp_path


def convert(page: str) -> str:
    configs = {"pymdownx.snippets": {"base_path": ["snippets"]}, "pymdownx.tabbed": {"alternate_style": True}}
    return markdown.Markdown(extensions=[*EXTENSIONS, "fieldnotes.extension"], extension_configs=configs).convert(page)


def outputs(html: str) -> list[str]:
    """Each block's output, in page order: markdown-exec's result (text), a code block with no title."""
    return re.findall(r'<div class="highlight"><pre><span></span><code>(.*?)</code>', html, re.DOTALL)


PAGE = (
    "# Indented\n\n"
    + block("one.py")
    + '\n!!! note "In an admonition"\n\n'
    + block("two.py", "    ")
    + '\n=== "A tab"\n\n'
    + block("one.py", "    ")
    + '\n- In a list:\n\n'
    + block("twin.py", "    ")
)


def test_a_block_runs_and_shows_its_output_at_any_indentation(project):
    """Catches a block in an admonition, a content tab or a list that is not run (its code shown with no
    output) or shows another block's output."""
    html = convert(PAGE)
    assert [o.strip() for o in outputs(html)] == ["one", "two", "one", "two"], html


@pytest.mark.parametrize("where", ["", "    "], ids=["top level", "in a content tab"])
def test_a_drift_raises_naming_the_page_line_and_the_diff(project, where):
    """Catches a drift shown as an output, or reported only as a log line a host ignores (Zensical passes a
    build whose formatter logs a warning or raises anything superfences swallows), wherever the block is."""
    (project / "snippets" / "two.out").write_text("not two\n")
    page = "# Drift\n\n" + ('=== "A tab"\n\n' if where else "") + block("two.py", where)
    with pytest.raises(Problem) as raised:
        convert(page)
    message = str(raised.value)
    line = 6 if where else 4
    assert message.startswith(f"<markdown>:{line}: snippets/two.py printed something other than its recorded")
    assert "-not two" in message and "+two" in message


def test_two_files_with_the_same_code_are_each_their_own_block(project):
    """Catches a block identified by its code alone: twin.py's drift reported as two.py's (they hold the
    same code), or two.py's run shown for both."""
    (project / "snippets" / "twin.out").write_text("recorded for the twin\n")
    with pytest.raises(Problem) as raised:
        convert("# Twins\n\n" + block("two.py") + "\n" + block("twin.py"))
    assert str(raised.value).startswith("<markdown>:8: snippets/twin.py printed something other")


def test_a_false_claim_and_code_in_the_fence_raise(project):
    """Catches a claim left unchecked without MkDocs, and code written in the fence passed unchecked."""
    with pytest.raises(Problem, match="the page claims snippets/one.py prints `three`"):
        convert('# Claims\n\nIt prints `three`{ data-out="one.py" }.\n')
    with pytest.raises(Problem, match=r"<markdown>:3: block \[\w+\] has no recorded output"):
        convert('# Inline\n\n```python exec="on" result="text"\nprint("inline")\n```\n')
