"""Each lesson page's examples, downloadable as one notebook, generated at build time from the snippet
files: the cells are those files in page order, and the notebook runs top to bottom on its own."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from pytest_examples import find_examples

from fieldnotes import blocks, runner
from fieldnotes.integrations.forked_kernel import ForkedKernelManager
from fieldnotes.render.page_notebook import RAISES_TAG
from tests.conftest import READER_RUNS, ROOT, Project, block, reader_run_kind

KIND = reader_run_kind("page notebook", __file__)
INCLUDE = re.compile(r'^--8<-- "(?P<path>[^"]+)"$')


def executed_snippets(page: Path) -> list[str]:
    """The snippet files a page's executed blocks include, in page order, read with pytest-examples (not
    with the plugin's parser): every python fence whose options say exec="on", wherever it says so."""
    found = []
    for example in find_examples(page):
        if example.prefix_settings().get("exec") == "on":
            found.append(f"snippets/{INCLUDE.match(example.source.strip())['path']}")
    return found


PAGES = [p for p in sorted((ROOT / "docs").rglob("*.md")) if executed_snippets(p)]


def notebook_of(site, page) -> nbformat.NotebookNode:
    name = page.relative_to(ROOT / "docs").as_posix().removesuffix(".md").replace("/", "-")
    return nbformat.reads((site / "notebooks" / f"{name}.ipynb").read_text(), as_version=4)


def cells_for(snippet: str) -> list[str]:
    """The snippet file as a cell, after a `%%writefile` cell for each helper beside it that it imports,
    directly or through another helper, in the order first imported (so the downloaded notebook runs
    without the rest of the repository)."""
    folder = (ROOT / snippet).parent
    code = (ROOT / snippet).read_text()
    helpers, reading = [], [code]
    while reading:
        text = reading.pop(0)
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from") and words[1].startswith("_"):
                helper = folder / f"{words[1]}.py"
                if helper.is_file() and helper not in helpers:
                    helpers.append(helper)
                    reading.append(helper.read_text())
    return [f"%%writefile {h.name}\n{h.read_text().rstrip()}" for h in helpers] + [code.rstrip("\n")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_cells_are_the_pages_snippets(built_site, page):
    """Catches a notebook whose cells are not the page's snippet files, in page order, or that lacks a
    helper a snippet imports (the rules page's _programs.py, which operators.py imports through _checks.py)."""
    notebook = notebook_of(built_site, page)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code == [cell for s in executed_snippets(page) for cell in cells_for(s)]
    folder = page.relative_to(ROOT / "docs").with_suffix("")
    folder = folder.parent if folder.name == "index" else folder  # docs/index.md is the site's index.html
    page_html = (built_site / folder / "index.html").read_text()
    assert "Download this page's examples as a notebook (.ipynb)" in page_html


CELL_TIMEOUT = 120  # seconds, nbclient's limit for each cell


def raised_top_to_bottom(notebook: nbformat.NotebookNode, folder: Path) -> list[bool]:
    """Which code cells raise when the notebook runs top to bottom in `folder`, stopping (and failing the
    test) at the first error in a cell not tagged as raising on purpose, as nbclient does. The kernel is
    the build's (fieldnotes.integrations.forked_kernel): a fork of the engine's server, which has
    imported torch."""
    runner.start_server(("torch",))
    NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        kernel_manager_class=ForkedKernelManager,
        resources={"metadata": {"path": str(folder)}},
    ).execute()
    return [any(o.output_type == "error" for o in c.outputs) for c in notebook.cells if c.cell_type == "code"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_runs_top_to_bottom(built_site, page, tmp_path):
    """In a fresh kernel, in an empty folder, as a reader runs a download. nbclient stops at the first
    error, except in cells tagged as raising on purpose; those must raise. Catches a notebook cell that
    errors (a snippet that needs state another page's cell made, or a helper file it imports), and a
    raising cell without its tag."""
    notebook = notebook_of(built_site, page)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    expected = [RAISES_TAG in c.metadata.get("tags", []) for c in code]
    # A passing run is remembered until the notebook, a helper or anything installed changes (fieldnotes.cache).
    key = READER_RUNS.content_key(KIND, nbformat.writes(notebook).encode())
    if (READER_RUNS.load(key) or {}).get("raised") == expected:
        return
    raised = raised_top_to_bottom(notebook, tmp_path)
    for cell, did, should in zip(code, raised, expected, strict=True):
        assert did == should, f"{page.name}: cell {json.dumps(cell.source[:60])} raised={did}"
    READER_RUNS.save(key, {"page": page.name, "raised": raised})


def test_a_block_with_its_options_in_another_order_is_in_the_notebook(project: Project):
    """Catches a notebook that drops an executed block whose exec="on" is not its first option (the page
    runs and shows it all the same)."""
    project.snippet("first.py", "print(1)\n", recorded="1\n")
    project.snippet("second.py", "print(2)\n", recorded="2\n")
    reordered = '```python title="snippets/second.py" result="text" exec="on" source="above"\n--8<-- "second.py"\n```\n'
    project.page("index.md", "# Page\n\n" + block("first.py") + "\n" + reordered)
    result = project.build()
    assert result.returncode == 0, result.stderr
    notebook = nbformat.reads((project.path / "site" / "notebooks" / "index.ipynb").read_text(), as_version=4)
    assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["print(1)", "print(2)"]
    assert executed_snippets(project.path / "docs" / "index.md") == ["snippets/first.py", "snippets/second.py"]


# --------------------------------------------------------------------------------------------------
# The prose reads as the page does, in Markdown Jupyter renders

SITE_URL = "http://127.0.0.1:8000/"  # mkdocs.yml's site_url when SITE_URL is not set, as in the suite
CODE = re.compile(r"^```.*?^```[ \t]*$|`[^`\n]+`", re.DOTALL | re.MULTILINE)
BUILD_MARKUP = {
    "an autograd-graph fence": re.compile(r"^```autograd-graph", re.MULTILINE),
    "an attribute list": re.compile(r"\{:?\s*(?:[#.][\w-]+|[\w-]+=)[^}]*\}"),
    "an admonition": re.compile(r"^\s*(?:!!!|\?\?\?)", re.MULTILINE),
    "an include line": re.compile(r"--8<--"),
    "an executed block's options": re.compile(r'exec="on"'),
}
LINK = re.compile(r"(?<!!)\[[^\]]+\]\(([^)\s]+)\)")
DIAGRAM = re.compile(r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')


def prose(notebook) -> str:
    return "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def page_prose(page: Path) -> str:
    """The page's Markdown outside its executed blocks, read without the plugin's parser."""
    return re.sub(r'^```python[^\n]*exec="on".*?^```$', "", page.read_text(), flags=re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_prose_has_no_build_markup(built_site, page):
    """Catches a notebook that shows the build's markup as text: an ```autograd-graph fence (instead of
    the diagram), `{ #anchor }` or `{ data-out=... }`, `!!! note`, a `--8<--` include line."""
    text = CODE.sub("", prose(notebook_of(built_site, page)))
    found = {what: pattern.findall(text) for what, pattern in BUILD_MARKUP.items()}
    assert not any(found.values()), {what: hits[:3] for what, hits in found.items() if hits}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_shows_each_diagram_as_an_image(built_site, page):
    """Catches a diagram dropped from the notebook, or one that is not a drawn SVG with a size of its
    own (an image of `width="100%"` has none)."""
    fences = page_prose(page).count("```autograd-graph")
    images = DIAGRAM.findall(prose(notebook_of(built_site, page)))
    assert len(images) == fences
    for image in images:
        svg = base64.b64decode(image).decode()
        assert svg.startswith("<svg") and "<text" in svg and 'width="100%"' not in svg


def built_target(site: Path, url: str) -> tuple[Path, str]:
    """The built file a link of the site points to, and its fragment."""
    path, _, fragment = url.removeprefix(SITE_URL).partition("#")
    target = site / path
    return (target / "index.html" if target.is_dir() else target), fragment


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_notebook_links_land(built_site, page):
    """Every link of the page is a link in the notebook (none flattened to text), and each lands: on
    an anchor of the notebook, on a page of the built site and the id it names (site_url is set), or
    on another site. Catches links flattened, left as `other.md` (no page in a notebook), pointing
    at a page or an id the site does not have, and a heading's id lost."""
    notebook_prose = prose(notebook_of(built_site, page))
    links = LINK.findall(notebook_prose)
    assert len(links) >= len(LINK.findall(CODE.sub("", page_prose(page))))
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', notebook_prose))
    for url in links:
        if url.startswith("#"):
            assert url[1:] in anchors, f"{page.name}: {url} is no anchor of the notebook"
        elif url.startswith(SITE_URL):
            target, fragment = built_target(built_site, url)
            assert target.is_file(), f"{page.name}: {url} is no page of the site"
            if fragment:
                assert f'id="{fragment}"' in target.read_text(), f"{page.name}: {url}: no such id"
        else:
            assert re.match(r"https?://", url), f"{page.name}: {url} lands nowhere from a notebook"


def test_prose_markup_becomes_what_jupyter_renders(tmp_path):
    """Each piece of markup on its own, in a page with no executed block, with and without a site_url.
    Catches a rewrite lost or changed: the expected Markdown is written out here."""
    (tmp_path / "snippets" / "rules").mkdir(parents=True)
    (tmp_path / "snippets" / "rules" / "words.py").write_text(
        'def rule():\n    """\n    --8<-- [start:rule-1]\n    **Rule one.** See [why](/faq/why.md#why).\n'
        '    --8<-- [end:rule-1]\n    """\n'
    )
    markdown = (
        '# Title `code`\n\n## Why? { #why-id }\n\nA claim `False None`{ data-out="x.py" }, '
        "[a page](../other.md#part), [here](#why-id), [away](https://example.org/).\n\n"
        '!!! note "Which backend"\n    Body with `code`.\n\n    More.\n\n'
        "??? tip\n    Folded.\n\n"
        '--8<-- "rules/words.py:rule-1"\n\n'
        "```text\n{ #kept } [not a link](x.md)\n```\n"
    )
    from fieldnotes.render.page_notebook import page_notebook

    def markdown_of(site_url: str) -> str:
        return prose(page_notebook(blocks.parse(markdown), tmp_path, "faq/page.md", site_url=site_url))

    with_site = markdown_of("https://site.example/docs/")
    assert '# Title `code` <a id="title-code"></a>' in with_site
    assert '## Why? <a id="why-id"></a>' in with_site
    assert "A claim `False None`, [a page](https://site.example/docs/other/#part), [here](#why-id), " in with_site
    assert "[away](https://example.org/)" in with_site
    assert "> **Which backend**\n>\n> Body with `code`.\n>\n> More." in with_site
    assert "<details><summary>Tip</summary>\n\nFolded.\n\n</details>" in with_site
    assert "**Rule one.** See [why](https://site.example/docs/faq/why/#why)." in with_site
    assert "```text\n{ #kept } [not a link](x.md)\n```" in with_site
    without_site = markdown_of("")
    assert "[a page](other.md#part)" in without_site
    assert "[why](faq/why.md#why)" in without_site


def test_a_link_to_a_notebook_page_lands_in_the_sites_own_docs_folder(tmp_path):
    """Catches the page notebook taking the docs folder to be `docs/` (a site whose `docs_dir` is
    `pages/` got links to `exercise/nb.py` itself, a download, instead of its page)."""
    from fieldnotes.render.page_notebook import page_notebook

    (tmp_path / "pages" / "exercise").mkdir(parents=True)
    (tmp_path / "pages" / "exercise" / "nb.py").write_text("# %%\n", encoding="utf-8")
    markdown = "# Title\n\nSee [the exercise](exercise/nb.py).\n"
    pages = tmp_path / "pages"
    notebook = page_notebook(blocks.parse(markdown), tmp_path, "page.md", site_url="https://s.example/", docs_dir=pages)
    assert "[the exercise](https://s.example/exercise/nb/)" in prose(notebook)
    default = page_notebook(blocks.parse(markdown), tmp_path, "page.md", site_url="https://s.example/")
    assert "[the exercise](https://s.example/exercise/nb.py)" in prose(default), "no such page under docs/"
