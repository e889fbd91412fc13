"""The vanishing-gradients exercise: docs/exercise/vanishing_gradients.py, a jupytext notebook that
mkdocs-jupyter executes at build time.

- What its page says holds, with the thresholds the page states, over the notebook's 20 seeds. The
  numbers come from running the notebook itself (as a plain script: a percent-format notebook is
  one), so the experiment code lives in one place, the notebook the reader sees and downloads.
- The built page is light (no inlined JupyterLab CSS, nothing loaded from elsewhere; its weight is
  checked with every page's in test_build.py) and complete.
- Its downloads (.py and .ipynb) are there, and the .ipynb runs top to bottom on its own.
- A notebook cell that raises fails the strict build, naming the notebook.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import shutil
from html.parser import HTMLParser

import jupytext
import matplotlib
import nbformat
import numpy as np
import pytest
import torch
from mkdocs.utils.yaml import yaml_load
from nbclient import NotebookClient

from fieldnotes.notebook_hooks import inline_svg
from tests.conftest import ROOT, Project, plugin_name

NOTEBOOK = ROOT / "docs" / "exercise" / "vanishing_gradients.py"
PAGE = "exercise/vanishing_gradients/index.html"
ACTIVATIONS = ("ReLU", "Sigmoid", "Tanh", "GELU")
DEPTHS = (3, 6, 10)


# --------------------------------------------------------------------------------------------------
# The claims, checked on the notebook's own numbers


@pytest.fixture(scope="module")
def nb() -> dict:
    """The notebook's namespace after running it top to bottom, as the build does (no kernel)."""
    threads = torch.get_num_threads()
    printed = io.StringIO()
    matplotlib.use("Agg")
    try:
        with matplotlib.rc_context(), contextlib.redirect_stdout(printed):
            namespace = runpy.run_path(str(NOTEBOOK), run_name="vanishing_gradients")
    finally:
        torch.set_num_threads(threads)  # the notebook sets 1
    namespace["printed"] = printed.getvalue()
    return namespace


def median(values) -> float:
    return float(np.nanmedian(values))


def test_the_claims_rest_on_20_seeds_and_three_depths(nb):
    assert list(nb["SEEDS"]) == list(range(20))
    assert tuple(nb["DEPTHS"]) == DEPTHS
    assert tuple(nb["ACTIVATIONS"]) == ACTIVATIONS
    for (depth, act), means in nb["means"].items():
        assert means.shape == (20, depth), (depth, act)


def test_numbers_are_reproducible(nb):
    """The page's numbers do not depend on the run: the same seed gives the same gradients."""
    assert np.array_equal(nb["sweep"](3, torch.nn.ReLU), nb["means"][3, "ReLU"])
    assert np.array_equal(nb["sweep"](3, torch.nn.Sigmoid), nb["means"][3, "Sigmoid"])


def test_hooks_fire_last_layer_first(nb):
    """Page: the `hook order` column starts with linear3 and ends with linear1."""
    for stats in (nb["relu_stats"], nb["sigmoid_stats"]):
        layers = [name.split(".")[0] for name in stats]
        assert list(dict.fromkeys(layers)) == ["linear3", "linear2", "linear1"]
        assert len(stats) == 6  # one entry per parameter: every hook fired once
        assert all(mean >= 0 and std >= 0 for mean, std in stats.values())


def test_seed_0_sigmoid_first_layer_smaller_last_layer_larger(nb):
    relu, sigmoid = nb["relu_means"], nb["sigmoid_means"]
    assert sigmoid[0] < relu[0]
    assert sigmoid[-1] > relu[-1]
    assert sigmoid[0] / sigmoid[-1] < relu[0] / relu[-1]
    assert "Sigmoid's hooks fired in the same order: True" in nb["printed"]


def test_seed_0_last_layer_input_sigmoid_positive_relu_zeros(nb):
    """Page: Sigmoid outputs are all positive around 0.5; ReLU's have exact zeros (printed)."""
    x = nb["x"]
    with torch.no_grad():
        torch.manual_seed(0)
        relu_hidden = nb["make_mlp"](3, torch.nn.ReLU)[:-1](x)
        torch.manual_seed(0)
        sigmoid_hidden = nb["make_mlp"](3, torch.nn.Sigmoid)[:-1](x)
    assert (sigmoid_hidden > 0).all() and 0.3 < sigmoid_hidden.mean() < 0.7
    assert (relu_hidden == 0).any()


@pytest.mark.parametrize("depth", DEPTHS)
def test_sigmoid_ratio_below_relu_in_every_seed_with_a_defined_relu_ratio(nb, depth):
    """Page: at all three depths, in every seed where ReLU's ratio is defined (threshold: all)."""
    relu, sigmoid = nb["ratios"][depth, "ReLU"], nb["ratios"][depth, "Sigmoid"]
    assert not np.isnan(sigmoid).any()
    defined = ~np.isnan(relu)
    assert (sigmoid[defined] < relu[defined]).all()


def test_undefined_ratios_are_dead_relu_networks_at_depth_10_only(nb):
    """Page: undefined only for the dead ReLU networks at depth 10, whose every weight gradient is 0."""
    for (depth, act), ratios in nb["ratios"].items():
        means = nb["means"][depth, act]
        dead = (means == 0).any(axis=1)
        if (depth, act) == (10, "ReLU"):
            assert 1 <= dead.sum() <= 2  # the page lists them; most seeds still compare
            assert (means[np.isnan(ratios)] == 0).all()
        else:
            assert not dead.any(), (depth, act)
            assert not np.isnan(ratios).any(), (depth, act)


@pytest.mark.parametrize("act", ACTIVATIONS)
def test_median_ratio_falls_as_depth_grows(nb, act):
    r = nb["ratios"]
    assert median(r[3, act]) > median(r[6, act]) > median(r[10, act])


@pytest.mark.parametrize("depth", DEPTHS)
def test_sigmoid_has_the_smallest_median_ratio(nb, depth):
    medians = {act: median(nb["ratios"][depth, act]) for act in ACTIVATIONS}
    assert min(medians, key=medians.get) == "Sigmoid"


def test_at_depth_10_every_median_ratio_is_below_one_hundredth(nb):
    for act in ACTIVATIONS:
        assert median(nb["ratios"][10, act]) < 0.01, act


def test_seed_0_surprise_holds_in_all_20_seeds_at_depth_3(nb):
    relu, sigmoid = nb["means"][3, "ReLU"], nb["means"][3, "Sigmoid"]
    assert (sigmoid[:, -1] > relu[:, -1]).all()
    assert (sigmoid[:, 0] < relu[:, 0]).all()


def test_sigmoid_derivative_is_at_most_a_quarter():
    z = torch.linspace(-20, 20, 40001, dtype=torch.float64, requires_grad=True)
    torch.sigmoid(z).sum().backward()
    assert z.grad.max() <= 0.25
    assert torch.isclose(z.grad.max(), torch.tensor(0.25, dtype=torch.float64))


def test_try_it_yourself_answers(nb):
    """Each statement of the folded answer, with the thresholds it states."""
    ratios, changed = nb["ratios"], nb["changed_ratios"]

    def r(change, depth, act):
        return median(ratios[depth, act] if change == "none" else changed[change, depth, act])

    def first_layer(change, act, index, depth=10):
        means = nb["means"][depth, act] if change == "none" else nb["changed_means"][change, depth, act]
        return float(np.median(means[:, index]))

    assert not any(np.isnan(v).any() for v in changed.values())  # "undefined ratios with a change: 0"
    # Initialisation
    assert all(r("init", d, "ReLU") > 0.1 for d in DEPTHS)
    assert r("none", 3, "ReLU") > 100 * r("none", 10, "ReLU")
    assert nb["fan_in_var"] < 2 and abs(nb["fan_in_var"] - 1 / 3) < 0.01
    assert all(r("init", d, "Sigmoid") > r("none", d, "Sigmoid") for d in DEPTHS)
    assert r("init", 3, "Sigmoid") > r("init", 6, "Sigmoid") > r("init", 10, "Sigmoid")
    assert r("init", 6, "Sigmoid") < 0.01 and r("init", 10, "Sigmoid") < 0.01
    # BatchNorm
    assert all(r("batchnorm", d, act) > 0.1 for d in DEPTHS for act in ("ReLU", "Sigmoid"))
    # Residual connections
    assert all(r("residual", d, "Sigmoid") > r("none", d, "Sigmoid") for d in DEPTHS)
    assert r("residual", 3, "Sigmoid") > r("residual", 6, "Sigmoid") > r("residual", 10, "Sigmoid")
    assert first_layer("residual", "Sigmoid", 0) > 100 * first_layer("none", "Sigmoid", 0)
    assert first_layer("residual", "Sigmoid", -1) > first_layer("none", "Sigmoid", -1)
    assert all(r("residual", d, "ReLU") > r("none", d, "ReLU") for d in (6, 10))


def test_every_statement_the_notebook_checks_is_printed(nb):
    """The notebook prints a `holds:` line for each checked statement (a false one raises instead)."""
    assert nb["printed"].count("holds: ") == 11 + len(nb["claims"])  # 11 in the solution, the rest in the answer
    assert "Traceback" not in nb["printed"]


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
    body = article(page_html)
    task = "Build a 3-layer MLP. Attach a <code>register_hook</code> to each parameter"
    assert body.index('id="the-exercise"') < body.index(task) < body.index('id="a-worked-solution"')
    assert body.index("<h1") < body.index('id="the-exercise"')


def test_page_shows_every_code_cell_but_the_hidden_answer(page_html):
    cells = [c for c in jupytext.read(NOTEBOOK).cells if c.cell_type == "code"]
    shown = [c for c in cells if "hide-input" not in c.metadata.get("tags", [])]
    assert len(shown) == len(cells) - 1
    assert article(page_html).count('class="nb-input highlight"') == len(shown)
    assert "The answer. On the web page this code is hidden" not in page_html


def test_figures_are_inline_svg_with_a_text_alternative_and_unique_ids(parsed_page, page_html):
    assert len(parsed_page.svgs) == 3
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
    assert sorted(parsed_page.downloads) == ["vanishing_gradients.ipynb", "vanishing_gradients.py"]
    folder = (built_site / PAGE).parent
    assert (folder / "vanishing_gradients.py").read_bytes() == NOTEBOOK.read_bytes()
    downloaded = nbformat.reads((folder / "vanishing_gradients.ipynb").read_text(), as_version=4)
    nbformat.validate(downloaded)
    source = jupytext.read(NOTEBOOK)
    assert [c.source for c in downloaded.cells] == [c.source for c in source.cells]
    assert downloaded.metadata.kernelspec.name == "python3"


def test_relative_links_resolve(built_site, parsed_page):
    folder = (built_site / PAGE).parent
    for href in parsed_page.links:
        if re.match(r"[a-z]+:|#", href):
            continue
        target = (folder / href.split("#")[0]).resolve()
        assert target.exists() or (target / "index.html").exists(), href


@pytest.fixture(scope="module")
def executed_download(built_site, tmp_path_factory) -> nbformat.NotebookNode:
    """The downloaded .ipynb, run by a fresh kernel in an empty folder: on its own."""
    folder = tmp_path_factory.mktemp("downloaded")
    shutil.copy((built_site / PAGE).parent / "vanishing_gradients.ipynb", folder)
    notebook = nbformat.read(folder / "vanishing_gradients.ipynb", as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.execute()  # raises CellExecutionError on the first cell that fails
    return notebook


def test_downloaded_notebook_runs_top_to_bottom_on_its_own(executed_download):
    outputs = [o for c in executed_download.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum("image/svg+xml" in o.get("data", {}) for o in outputs) == 3
    assert "<details" in executed_download.cells[-1].outputs[-1]["data"]["text/html"]


# --------------------------------------------------------------------------------------------------
# A failing cell fails the build


@pytest.fixture(scope="module")
def build_with_a_raising_cell(tmp_path_factory):
    """The notebook page alone, built with the real configuration (but the link checker: the page links
    to pages left out), with a cell that raises inserted before the notebook's first code cell."""
    project = Project(tmp_path_factory.mktemp("raising"))
    real = yaml_load((ROOT / "mkdocs.yml").read_text())
    project.config["plugins"] = [p for p in real["plugins"] if plugin_name(p) != "fieldnotes-links"]
    project.config["hooks"] = [str(ROOT / hook) for hook in real["hooks"]]
    text = NOTEBOOK.read_text()
    raising = '# %%\nraise RuntimeError("a cell that fails on purpose")\n\n\n# %%\nimport io\n'
    assert text.count("\n# %%\nimport io\n") == 1
    (project.path / "docs" / "exercise").mkdir()
    project.page("exercise/vanishing_gradients.py", text.replace("# %%\nimport io\n", raising, 1))
    return project.build()


def test_a_raising_cell_fails_the_build_naming_the_notebook(build_with_a_raising_cell):
    result = build_with_a_raising_cell
    log = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)  # the traceback is in colour
    assert result.returncode != 0
    assert "Error reading page 'exercise/vanishing_gradients.py': An error occurred while executing" in log
    assert "RuntimeError: a cell that fails on purpose" in log


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
