"""The vanishing-gradients exercise: docs/exercise/vanishing_gradients.py, a jupytext notebook that
mkdocs-jupyter executes at build time.

The page's statements about its numbers are checked by the notebook itself: each `check(claim, holds)`
prints `holds: claim` or raises, and a raising cell fails the build. These tests do not recompute the
numbers (that would be a second copy of the experiment). They check that the checks run and reach the
page, and that a change to the experiment that makes a statement false fails the build. The notebook
runs once per suite, in the build (and mkdocs-jupyter reuses that run while nothing changed); the
downloaded .ipynb runs once more, in its own kernel, until it passes, then while nothing it depends
on changes the passing run is reused (fieldnotes.cache); the false-statement build stops at the
first check. Nothing runs the notebook inside the pytest process.

- The built page: light (no inlined JupyterLab CSS, nothing loaded from elsewhere; its weight is
  checked with every page's in test_build.py), the task first, the helpers and checks folded.
- Its downloads (.py and .ipynb) are the notebook, and the .ipynb runs top to bottom on its own.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
from html.parser import HTMLParser

import jupytext
import nbformat
import pytest
import torch
from bs4 import BeautifulSoup
from mkdocs.utils.yaml import yaml_load
from nbclient import NotebookClient

from fieldnotes import runner
from fieldnotes.features.notebook_html import inline_svg
from tests.conftest import READER_RUNS, ROOT, Project, reader_run_kind

NOTEBOOK = ROOT / "docs" / "exercise" / "vanishing_gradients.py"
PAGE = "exercise/vanishing_gradients/index.html"
KIND = reader_run_kind("exercise download", __file__)
# The statements the page makes about its numbers and checks: deleting one check fails
# test_every_statement_is_checked_on_the_page; adding one means raising this number.
CHECKED_STATEMENTS = 26
FIGURES = 5  # the "Deeper networks" panels are one figure per depth


def checked_claims() -> list[str]:
    """The claims of the notebook's `check("...", ...)` calls and of its answer's `claims` list, read
    from its source (not run)."""
    tree = ast.parse(NOTEBOOK.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check" and node.args:
            if isinstance(node.args[0], ast.Constant):
                found.append(node.args[0].value)
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["claims"]:
            found += [element.elts[0].value for element in node.value.elts]
    return found


# --------------------------------------------------------------------------------------------------
# The built page


class _Page(HTMLParser):
    """The parts of the built page the tests look at."""

    def __init__(self) -> None:
        super().__init__()
        self.downloads: list[str] = []
        self.links: list[str] = []
        self.ids: list[str] = []
        self.svgs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        if tag == "a" and "href" in attributes:
            (self.downloads if "download" in attributes else self.links).append(attributes["href"])
        if tag == "svg" and attributes.get("role") == "img":
            self.svgs.append(attributes)


@pytest.fixture(scope="module")
def page_html(built_site) -> str:
    return (built_site / PAGE).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def parsed_page(page_html) -> _Page:
    parsed = _Page()
    parsed.feed(page_html)
    return parsed


def article(page_html: str) -> str:
    return page_html[page_html.index("<article") : page_html.index("</article>")]


def test_page_inlines_no_notebook_css_and_loads_nothing_from_elsewhere(page_html):
    body = article(page_html)
    assert "<style" not in body and "<script" not in body
    assert 'class="jp-' not in body  # JupyterLab's markup is rewritten as the theme's
    for remote in ("cdnjs", "jsdelivr", "unpkg", "mathjax", "mermaid", "googleapis"):
        assert remote not in page_html.lower(), remote
    for tag in re.findall(r"<(?:script|link|img)[^>]+>", page_html):
        if 'rel="canonical"' in tag:  # names the page's own published address (site_url); loads nothing
            continue
        src = re.search(r'(?:src|href)="([^"]+)"', tag)
        assert src is None or not re.match(r"(https?:)?//", src[1]), tag
    assert "stylesheets/site.css" in page_html


def test_page_has_its_own_description(page_html):
    """From the notebook's metadata, a notebook having no front matter."""
    assert '<meta name="description" content="An executed exercise: hooks record' in page_html


def test_page_states_the_task_first(page_html):
    """The task comes right under the title, before any code."""
    body = article(page_html)
    task = "Build a 3-layer MLP. Attach a <code>register_hook</code> to each parameter"
    assert body.index("<h1") < body.index(task) < body.index("<h2") < body.index('class="nb-input')


def test_page_shows_every_code_cell_but_the_hidden_answer(page_html):
    cells = [c for c in jupytext.read(NOTEBOOK).cells if c.cell_type == "code"]
    shown = [c for c in cells if "hide-input" not in c.metadata.get("tags", [])]
    assert len(shown) == len(cells) - 1
    assert article(page_html).count('class="nb-input highlight"') == len(shown)
    assert "The answer. On the web page this code is hidden" not in page_html


def test_figures_are_inline_svg_with_a_text_alternative_and_unique_ids(parsed_page, page_html):
    assert len(parsed_page.svgs) == FIGURES
    assert all(len(svg.get("aria-label", "")) > 40 for svg in parsed_page.svgs)
    assert "data:image/svg+xml" not in page_html and "data:image/png" not in page_html
    duplicates = {i for i in parsed_page.ids if parsed_page.ids.count(i) > 1}
    assert not duplicates


def test_answer_is_folded(page_html):
    body = article(page_html)
    assert '<details class="success"><summary>Answer: what the three changes do</summary>' in body
    answer = body[body.index('<details class="success">') :]
    assert "holds: batchnorm" in answer
    assert re.search(r"<details[^>]*\bopen\b", body) is None


def test_downloads_are_the_notebook_as_py_and_ipynb(built_site, parsed_page):
    """The .py is the notebook's file; the .ipynb holds its cells after one first cell that names the
    torch which printed the page. Catches a download dropped, a cell lost or reordered in conversion,
    and a first cell naming another torch than the one installed."""
    assert sorted(parsed_page.downloads) == ["vanishing_gradients.ipynb", "vanishing_gradients.py"]
    folder = (built_site / PAGE).parent
    assert (folder / "vanishing_gradients.py").read_bytes() == NOTEBOOK.read_bytes()
    downloaded = nbformat.reads((folder / "vanishing_gradients.ipynb").read_text(), as_version=4)
    nbformat.validate(downloaded)
    source = jupytext.read(NOTEBOOK)
    first, *cells = downloaded.cells
    assert f"printed by torch {torch.__version__};" in first.source
    assert [c.source for c in cells] == [c.source for c in source.cells]
    assert downloaded.metadata.kernelspec.name == "python3"


def test_relative_links_resolve(built_site, parsed_page):
    folder = (built_site / PAGE).parent
    for href in parsed_page.links:
        if re.match(r"[a-z]+:|#", href):
            continue
        target = (folder / href.split("#")[0]).resolve()
        assert target.exists() or (target / "index.html").exists(), href


def folds(page_html: str) -> list:
    return BeautifulSoup(article(page_html), "html.parser").select("details.nb-fold")


def test_every_statement_is_checked_on_the_page(page_html):
    """Each checked claim's `holds:` line is on the built page, printed by the build's run of the
    notebook. Catches a check deleted, one that stops reporting, or a cell that did not run."""
    claims = checked_claims()
    assert len(claims) == CHECKED_STATEMENTS
    text = BeautifulSoup(article(page_html), "html.parser").get_text()
    shown = [line.removeprefix("holds: ") for line in text.splitlines() if line.startswith("holds: ")]
    assert [c for c in claims if c not in shown] == []
    assert len(shown) == len(claims)


def test_helpers_and_checks_are_folded_and_the_experiment_is_not(page_html):
    """Catches a fold lost (e.g. the hook no longer reading the tag) or the learner's code folded."""
    tagged = [c for c in jupytext.read(NOTEBOOK).cells if "fold" in c.metadata.get("tags", [])]
    shown = folds(page_html)
    assert len(shown) == len(tagged) >= 5
    assert not any(fold.has_attr("open") for fold in shown)
    folded = "\n".join(fold.get_text() for fold in shown)
    unfolded = BeautifulSoup(article(page_html), "html.parser")
    for fold in unfolded.select("details"):
        fold.decompose()
    unfolded = unfolded.get_text()
    for boilerplate in ("def check(", "plt.rcParams.update(", "def show(", "holds: the hooks fired"):
        assert boilerplate in folded and boilerplate not in unfolded, boilerplate
    for experiment in ("def make_mlp(", "parameter.register_hook(", "def one_batch(", "loss.backward()"):
        assert experiment in unfolded, experiment
    for fold, cell in zip(shown, tagged, strict=True):  # each fold is summed up by its cell's first line
        assert fold.summary.get_text() == cell.source.splitlines()[0].lstrip("# ")


def test_each_figure_comes_right_after_its_code(page_html):
    """A figure's code is the block just before it (that the first figure is in the first half of the
    page on screen is checked in tests/browser/test_exercise_page.py)."""
    body = BeautifulSoup(article(page_html), "html.parser")
    for figure in body.select("div.nb-figure"):
        between = []
        for before in figure.find_previous_siblings():
            if "nb-input" in before.get("class", []):
                break
            between.append(before)
        assert "show(fig" in before.get_text()
        # Its printed result, or the same cell's other figures (one per depth): no prose.
        assert all({"nb-output", "nb-figure"} & set(b.get("class", [])) for b in between)


@pytest.fixture(scope="module")
def executed_download(built_site, tmp_path_factory) -> dict:
    """The downloaded .ipynb, run by a fresh kernel in an empty folder: on its own. A passing run is
    remembered until the notebook or anything installed changes (fieldnotes.cache)."""
    downloaded = (built_site / PAGE).parent / "vanishing_gradients.ipynb"
    key = READER_RUNS.content_key(KIND, downloaded.read_bytes())
    remembered = READER_RUNS.load(key)
    if remembered is not None:
        return remembered
    folder = tmp_path_factory.mktemp("downloaded")
    shutil.copy(downloaded, folder)
    notebook = nbformat.read(folder / "vanishing_gradients.ipynb", as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.execute()  # raises CellExecutionError on the first cell that fails
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    result = {
        "errors": sum(o.output_type == "error" for o in outputs),
        "figures": sum("image/svg+xml" in o.get("data", {}) for o in outputs),
        "text": "".join(o.get("text", "") + o.get("data", {}).get("text/html", "") for o in outputs),
    }
    READER_RUNS.save(key, result)
    return result


def test_downloaded_notebook_runs_top_to_bottom_on_its_own(executed_download):
    assert executed_download["errors"] == 0
    assert executed_download["figures"] == FIGURES
    assert executed_download["text"].count("holds: ") == CHECKED_STATEMENTS
    assert '<details class="success"><summary>Answer' in executed_download["text"]


@pytest.fixture(scope="module")
def script_run(built_site, tmp_path_factory) -> dict:
    """The downloaded .py run as `python vanishing_gradients.py` would run it (the engine's runner), as a
    plain script, in an empty folder. A passing run is remembered until the file or anything installed
    changes (fieldnotes.cache)."""
    downloaded = (built_site / PAGE).parent / "vanishing_gradients.py"
    key = READER_RUNS.content_key(f"{KIND} script", downloaded.read_bytes())
    remembered = READER_RUNS.load(key)
    if remembered is not None:
        return remembered
    folder = tmp_path_factory.mktemp("script")
    shutil.copy(downloaded, folder)
    runner.start_server(("torch",))
    run = runner.run_snippet(folder, "vanishing_gradients.py", timeout=600)
    result = {
        "returncode": run.exit_code,
        "output": run.output,
        "figures": {path.name: path.read_text() for path in sorted(folder.glob("*.svg"))},
    }
    if run.exit_code == 0:
        READER_RUNS.save(key, result)
    return result


def test_the_script_runs_and_saves_its_figures(script_run):
    """`python vanishing_gradients.py` in an empty folder: it runs to the end, makes every check, and
    saves each figure as an SVG file (titled with its description) instead of printing an object's
    repr. Catches show() calling display() outside IPython (`<IPython.core.display.SVG object>`), a
    figure not saved, and a script that needs something the folder does not have."""
    assert script_run["returncode"] == 0, script_run["output"][-2000:]
    out = script_run["output"]
    assert "<IPython.core.display" not in out and " object at 0x" not in out
    assert out.count("holds: ") == CHECKED_STATEMENTS
    figures = script_run["figures"]
    assert sorted(figures) == [f"figure-{n}.svg" for n in range(1, FIGURES + 1)]
    for name, svg in figures.items():
        title = re.search(r"<dc:title>(.*?)</dc:title>", svg, re.DOTALL)
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg and title, name
        assert f"[{name} saved: " in out, name


# --------------------------------------------------------------------------------------------------
# A statement that no longer holds fails the build

# The product changed so that a statement becomes false: the "Sigmoid" run of the one-seed experiment
# builds a ReLU network, so Sigmoid no longer gets less gradient in linear1 than ReLU.
EXPERIMENT = "sigmoid_stats, sigmoid_model, sigmoid_x = one_batch(3, nn.Sigmoid, seed=0)"
BROKEN = EXPERIMENT.replace("nn.Sigmoid", "nn.ReLU")
FALSE_CLAIM = "with Sigmoid, linear1 gets less gradient than with ReLU, linear3 more"


@pytest.fixture(scope="module")
def build_with_a_false_statement(tmp_path_factory):
    """The notebook page alone, built with the real configuration (but the link checker: the page links
    to pages left out), its experiment changed as above."""
    project = Project(tmp_path_factory.mktemp("false-statement"))
    real = yaml_load((ROOT / "mkdocs.yml").read_text())
    project.config["plugins"] = real["plugins"]
    project.feature("links", enabled=False)
    text = NOTEBOOK.read_text()
    assert text.count(EXPERIMENT) == 1
    (project.path / "docs" / "exercise").mkdir()
    project.page("exercise/vanishing_gradients.py", text.replace(EXPERIMENT, BROKEN))
    return project.build()


def test_a_false_statement_fails_the_build_naming_it(build_with_a_false_statement):
    """Catches check() that stops raising, a check's condition weakened to always hold, the cell's
    output no longer checked, or a notebook error that does not fail the build."""
    result = build_with_a_false_statement
    log = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)  # the traceback is in colour
    assert result.returncode != 0
    assert "Error reading page 'exercise/vanishing_gradients.py': An error occurred while executing" in log
    assert f"AssertionError: The page claims: {FALSE_CLAIM}. It does not hold." in log


# --------------------------------------------------------------------------------------------------
# The hook's SVG rewriting


def test_inline_svg_gives_each_figure_its_own_ids_and_a_text_alternative():
    import matplotlib.pyplot as plt

    svgs = []
    for title in ("first figure", "second figure"):
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [1, 4, 9], marker="o")
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Title": title, "Date": None})
        plt.close(fig)
        svgs.append(buffer.getvalue())
    first, problem = inline_svg(svgs[0], "nb-fig1")
    second, _ = inline_svg(svgs[1], "nb-fig2")
    assert problem is None
    assert first.startswith('<svg role="img" aria-label="first figure"')
    assert "<style" not in first and "<metadata" not in first and "<?xml" not in first
    ids = re.findall(r'\sid="([^"]+)"', first + second)
    assert ids and len(ids) == len(set(ids))
    for reference in re.findall(r'(?:href="#|url\(#)([^")]+)', first):
        assert f' id="{reference}"' in first
    fig, ax = plt.subplots()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")  # no Title
    plt.close(fig)
    untitled, problem = inline_svg(buffer.getvalue(), "x")
    assert problem and "text alternative" in problem
    assert "aria-label" not in untitled


def _declarations(style: str) -> dict[str, str]:
    pairs = (d.split(":", 1) for d in style.split(";") if d.strip())
    return {name.strip(): value.strip() for name, value in pairs}


def _uses_as_drawn(svg: str) -> list[dict[str, str]]:
    """Each <use>'s style as its clone gets it: the <use>'s, overridden by the referenced element's."""
    own = {m[1]: _declarations(m[2]) for m in re.finditer(r'<\w+ id="([^"]+)"[^>]*?\sstyle="([^"]*)"', svg)}
    uses = re.finditer(r'<use\b[^>]*?href="#([^"]+)"[^>]*?(?:\sstyle="([^"]*)")?\s*/>', svg)
    return [{**_declarations(m[2] or ""), **own.get(m[1], {})} for m in uses]


def test_inline_svg_drops_only_styles_and_paths_that_draw_nothing():
    """Each tick and marker (a <use> of a path) is drawn with the same style, and every path that
    draws something stays. Catches dropping a marker's fill (a property its path does not set) or a
    path with a stroke, and dropping an unfilled path inside a group that gives it a stroke."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    fig.patch.set_facecolor("none")
    ax.patch.set_facecolor("none")
    ax.plot([1, 2, 3], [1, 4, 9], marker="o", color="#2f7fc1")
    ax.plot([1, 2, 3], [2, 3, 5], marker="s", color="#d55e00", ls="--")
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Title": "a figure", "Date": None})
    plt.close(fig)
    raw = buffer.getvalue()
    svg, _ = inline_svg(raw, "nb-fig1")
    assert _uses_as_drawn(svg) == _uses_as_drawn(raw)
    assert len(_uses_as_drawn(svg)) > 6  # the ticks and the markers
    styles = [m[1] or "" for m in re.finditer(r'<path\b[^>]*?(?:\sstyle="([^"]*)")?\s*/>', raw)]
    draws = [style for style in styles if _declarations(style) != {"fill": "none"}]
    assert len(draws) < len(styles)  # the figure's and the axes' backgrounds
    assert svg.count("<path") == len(draws)
    stroked = '<svg><g style="stroke:#f00"><path d="M 0 0 L 1 1" style="fill:none"/></g></svg>'
    assert '<path d="M 0 0 L 1 1" style="fill:none"/>' in inline_svg(stroked, "x")[0]
