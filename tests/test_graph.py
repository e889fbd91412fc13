"""Autograd graph diagrams: the drawn graph is the autograd graph the example built, and the SVG is
accessible, self-contained and byte-identical from one build to the next."""

from __future__ import annotations

import contextlib
import importlib
import io
import logging
import os
import pkgutil
import re
import runpy
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch

from fieldnotes import blocks
from fieldnotes.cache import Store
from fieldnotes.jobs import Scheduler
from fieldnotes.torch import graph, graph_fence
from tests.conftest import ROOT

SVG = "{http://www.w3.org/2000/svg}"


@contextlib.contextmanager
def contained():
    """The examples below run in this process, because the model tests compare the drawn graph with the
    live autograd objects; whatever global state they set (the RNG seed, and for safety grad mode, the
    default dtype, the thread count) is put back, so no later test in this worker sees it."""
    grad, dtype, threads = torch.is_grad_enabled(), torch.get_default_dtype(), torch.get_num_threads()
    try:
        with torch.random.fork_rng(devices=[]):
            yield
    finally:
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)
        torch.set_num_threads(threads)


def run_example(snippet: str) -> dict:
    """The globals an example leaves behind (its prints and warnings muted)."""
    with (
        contained(),
        warnings.catch_warnings(),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        return runpy.run_path(str(ROOT / "snippets" / snippet), run_name="__main__")


def diamond() -> dict:
    """A leaf reached along two paths, a leaf that needs no gradient, and two named results."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    k = torch.ones(2)
    y, z = x.exp(), x.sin()
    loss = (y * z + k).sum()
    loss.backward()
    return {"x": x, "k": k, "y": y, "z": z, "loss": loss}


def deep_mlp(depth: int = 8) -> dict:
    with contained():
        torch.manual_seed(0)
        layers = [m for _ in range(depth) for m in (torch.nn.Linear(4, 4), torch.nn.Tanh())]
        model = torch.nn.Sequential(*layers)
        loss = model(torch.randn(2, 4)).sum()
        loss.backward()
    return {"model": model, "loss": loss}


EXAMPLES = {
    "seed": (lambda: run_example("grad_none/seed.py"), ["a", "b", "c"]),
    "retain_grad": (lambda: run_example("retain_grad/seed.py"), ["a", "b", "c"]),
    "mlp_hooks": (lambda: run_example("hooks/seed.py"), ["loss", "model"]),
    "hook_on_intermediate": (lambda: run_example("hooks/intermediate.py"), ["a", "b", "c"]),
    "post_accumulate": (lambda: run_example("hooks/post_accumulate.py"), ["loss", "model"]),
    "to_pitfall": (lambda: run_example("leaves/non_leaf_param_pitfall.py"), ["w", "loss"]),
    "diamond": (diamond, ["x", "k", "y", "z", "loss"]),
}


@pytest.fixture(params=sorted(EXAMPLES))
def example(request):
    make, names = EXAMPLES[request.param]
    namespace = make()
    return namespace, names, graph.build(namespace, names, collapse="none")


# --- the model against autograd itself ------------------------------------------------------------


def autograd_truth(namespace, names):
    """Walk the autograd graph independently: the autograd nodes and every reference between nodes."""
    tensors = []
    for name in names:
        value = namespace[name]
        tensors += list(value.parameters()) if isinstance(value, torch.nn.Module) else [value]
    functions, references = [], []  # references: (source object, target object, kind)
    todo = []
    for t in tensors:
        if t.grad_fn is not None:
            references.append((t, t.grad_fn, "grad_fn"))
            todo.append(t.grad_fn)
    while todo:
        fn = todo.pop()
        if any(fn is f for f in functions):
            continue
        functions.append(fn)
        if hasattr(fn, "variable"):
            references.append((fn, fn.variable, "variable"))
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                references.append((fn, nxt, "next"))
                todo.append(nxt)
    leaves = [ref[1] for ref in references if ref[2] == "variable"]
    return tensors, functions, leaves, references


def test_nodes_are_the_autograd_nodes(example):
    """Catches a node missed, invented or mislabelled, checked against an independent walk of autograd."""
    namespace, names, g = example
    tensors, functions, leaves, _ = autograd_truth(namespace, names)
    drawn_functions = [n.ref for n in g.nodes if n.kind == "function"]
    assert len(drawn_functions) == len(functions)
    assert all(any(f is d for d in drawn_functions) for f in functions)
    drawn_tensors = [n.ref for n in g.nodes if n.kind == "tensor"]
    expected = tensors + [leaf for leaf in leaves if not any(leaf is t for t in tensors)]
    assert len(drawn_tensors) == len({id(t) for t in expected})
    assert all(any(t is d for d in drawn_tensors) for t in expected)
    for node in g.nodes:
        if node.kind == "function":
            assert node.label == type(node.ref).__name__
        else:
            assert node.is_leaf == node.ref.is_leaf
            assert node.requires_grad == node.ref.requires_grad


def test_edges_point_the_way_autograd_does(example):
    """Catches an edge missed, reversed, of the wrong kind or count (b * b lists b's grad_fn twice)."""
    namespace, names, g = example
    _, _, _, references = autograd_truth(namespace, names)
    by_id = {n.id: n for n in g.nodes}
    for edge in g.edges:
        source, target = by_id[edge.source].ref, by_id[edge.target].ref
        if edge.kind == "grad_fn":
            assert source.grad_fn is target
        elif edge.kind == "variable":
            assert source.variable is target
        else:
            assert sum(1 for f, _ in source.next_functions if f is target) == edge.count
    drawn = [(by_id[e.source].ref, by_id[e.target].ref, e.kind) for e in g.edges for _ in range(e.count)]
    assert len(drawn) == len(references)
    for s, t, kind in references:
        assert any(s is ds and t is dt and kind == dk for ds, dt, dk in drawn)


def test_every_tensor_label_is_a_name_in_the_example(example):
    namespace, names, g = example
    allowed = set(names)
    for name in names:
        if isinstance(namespace[name], torch.nn.Module):
            allowed |= {n for n, _ in namespace[name].named_parameters()}
    for node in g.nodes:
        if node.kind == "tensor":
            assert set(node.names) <= allowed
            assert node.label == " = ".join(node.names)
            if not node.names:  # only a leaf reached through AccumulateGrad may be unnamed
                assert node.is_leaf and not any(node.ref is namespace.get(n) for n in names)


def test_seed_graph_exactly():
    g = graph.build(run_example("grad_none/seed.py"), ["a", "b", "c"])
    labels = {n.id: n.label for n in g.nodes}
    assert sorted(labels.values()) == ["AccumulateGrad", "AddBackward0", "MulBackward0", "a", "b", "c"]
    assert {(labels[e.source], labels[e.target], e.kind) for e in g.edges} == {
        ("c", "AddBackward0", "grad_fn"),
        ("b", "MulBackward0", "grad_fn"),
        ("AddBackward0", "MulBackward0", "next"),
        ("MulBackward0", "AccumulateGrad", "next"),
        ("AccumulateGrad", "a", "variable"),
    }
    tensors = {n.label: n for n in g.nodes if n.kind == "tensor"}
    assert [tensors[x].is_leaf for x in "abc"] == [True, False, False]
    assert tensors["a"].grad == "tensor(3.)"
    assert tensors["b"].grad == tensors["c"].grad == "None"
    words = g.description()
    assert "a is a leaf with requires_grad=True and .grad tensor(3.)" in words
    assert "c.grad_fn is AddBackward0" in words
    assert "AddBackward0 (grad_fn of c) passes gradient to MulBackward0 (grad_fn of b)" in words


def test_markers_for_retain_grad_and_hooks():
    retained = {n.label: n for n in graph.build(run_example("retain_grad/seed.py"), ["a", "b", "c"]).nodes}
    assert retained["b"].retains_grad and retained["b"].grad == "tensor(1.)" and "retain_grad()" in retained["b"].lines
    assert not retained["c"].retains_grad

    mlp = graph.build(run_example("hooks/seed.py"), ["loss", "model"])
    params = {n.label: n for n in mlp.nodes if n.kind == "tensor" and n.is_leaf}
    assert sorted(params) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    assert all(p.hooks == 1 and "register_hook \u00d71" in p.lines for p in params.values())
    assert params["0.weight"].grad == "(8, 4) tensor"

    hooked = {n.label: n for n in graph.build(run_example("hooks/intermediate.py"), ["a", "b", "c"]).nodes}
    assert hooked["b"].hooks == 1 and hooked["a"].hooks == 0
    twice = [e for e in graph.build(run_example("hooks/intermediate.py"), ["c"]).edges if e.count == 2]
    assert len(twice) == 1  # c = b * b: MulBackward0 lists b's grad_fn twice

    post = graph.build(run_example("hooks/post_accumulate.py"), ["loss", "model"])
    assert [n.post_accumulate_hooks for n in post.nodes if n.kind == "tensor" and n.is_leaf] == [1, 1]


def test_to_makes_a_non_leaf_and_the_leaf_is_unnamed():
    """`.to()` on a fresh leaf returns a copy: `w` is not a leaf, the leaf has no name."""
    g = graph.build(run_example("leaves/non_leaf_param_pitfall.py"), ["w"])
    labels = {n.id: n for n in g.nodes}
    w = next(n for n in g.nodes if n.label == "w")
    assert not w.is_leaf and w.grad == "None"
    (to_copy,) = [labels[e.target] for e in g.edges if e.source == w.id]
    assert to_copy.label == "ToCopyBackward0"
    (leaf,) = [n for n in g.nodes if n.kind == "tensor" and n.is_leaf]
    assert leaf.names == () and leaf.grad == "(3,) tensor" and "(unnamed) \u00b7 leaf" in leaf.lines


def test_drawing_reads_no_non_leaf_grad():
    namespace = run_example("grad_none/seed.py")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph.render_svg(graph.build(namespace, ["a", "b", "c"]))
    assert [str(w.message) for w in caught] == []


def test_unknown_or_wrong_names_are_errors():
    namespace = run_example("grad_none/seed.py")
    with pytest.raises(graph.GraphError, match=r"no variable 'd'; its tensors and modules are: a, b, c"):
        graph.build(namespace, ["a", "d"])
    with pytest.raises(graph.GraphError, match="not a tensor"):
        graph.build({"torch": torch}, ["torch"])


# --- collapsing ---------------------------------------------------------------------------------


def out_edges(g, node) -> list[tuple[str, str]]:
    """(kind of edge, label of target) for each edge leaving node, in the graph's order."""
    by_id = {n.id: n for n in g.nodes}
    return [(e.kind, by_id[e.target].label) for e in g.edges if e.source == node.id]


def only(g, node, kind: str):
    (edge,) = [e for e in g.edges if e.source == node.id and e.kind == kind]
    return next(n for n in g.nodes if n.id == edge.target)


def test_big_model_collapses_to_one_node_per_layer():
    """Catches folding that loses, merges or misconnects layers: the collapsed graph of
    Sequential(Linear, Tanh) x 8 is written out here, node by node, from the model's architecture."""
    namespace = deep_mlp()
    model = namespace["model"]
    full = graph.build(namespace, ["loss", "model"], collapse="none")
    assert len(full.nodes) > graph.DEFAULT_MAX_NODES
    small = graph.build(namespace, ["loss", "model"])
    assert small.collapsed == "modules"
    # loss -> Sum -> Tanh -> Addmm(14) -> [group 14, Tanh -> Addmm(12) -> ...] ... Addmm(2) -> [group 2, group 0].
    # Group 0 also holds the first layer's AddmmBackward0 (its input needs no gradient) and the TanhBackward0
    # above it: autograd nodes that lead only to that layer's parameters.
    by_label = {n.label: n for n in small.nodes if n.kind in ("tensor", "group")}
    (loss,) = [n for n in small.nodes if n.label == "loss"]
    assert out_edges(small, loss) == [("grad_fn", "SumBackward0")]
    node = only(small, only(small, loss, "grad_fn"), "next")
    for layer in range(14, 0, -2):
        assert node.label == "TanhBackward0" and out_edges(small, node) == [("next", "AddmmBackward0")]
        addmm = only(small, node, "next")
        below = "TanhBackward0" if layer > 2 else "0"
        assert sorted(out_edges(small, addmm)) == sorted([("next", str(layer)), ("next", below)])
        node = next(
            n
            for n in small.nodes
            if n.id in {e.target for e in small.edges if e.source == addmm.id} and n.label == below
        )
    for layer in range(0, 16, 2):
        group = by_label[str(layer)]
        assert group.kind == "group" and out_edges(small, group) == []
        assert sorted(group.members) == sorted(f"{layer}.{name}" for name, _ in model[layer].named_parameters())
        assert group.lines[0] == f"{layer} \u00b7 Linear" and group.lines[2] == ".grad set: 2 of 2"
        # weight, bias, their AccumulateGrads, the weight's TBackward0 (and group 0's two more)
        assert group.folded == (7 if layer == 0 else 5)
    assert len(small.nodes) == 1 + 1 + 7 + 7 + 8
    assert sum(max(n.folded, 1) for n in small.nodes) == len(full.nodes)


def test_long_chain_collapses_to_one_pill():
    """Catches a chain folded into the wrong place, or its ends lost: the collapsed graph is written out."""
    x0 = torch.ones(2, requires_grad=True)
    x = x0
    for _ in range(40):
        x = x * 0.9
    y = x.sum()
    g = graph.build({"x0": x0, "y": y}, ["x0", "y"])
    assert g.collapsed == "chains"
    labels = {n.id: n.label for n in g.nodes}
    assert sorted(labels.values()) == sorted(["x0", "y", "SumBackward0", "MulBackward0 \u00d740", "AccumulateGrad"])
    assert sorted((labels[e.source], labels[e.target], e.kind, e.count) for e in g.edges) == sorted(
        [
            ("y", "SumBackward0", "grad_fn", 1),
            ("SumBackward0", "MulBackward0 \u00d740", "next", 1),
            ("MulBackward0 \u00d740", "AccumulateGrad", "next", 1),
            ("AccumulateGrad", "x0", "variable", 1),
        ]
    )
    (chain,) = [n for n in g.nodes if n.kind == "chain"]
    assert chain.members == ("MulBackward0",) * 40 and chain.folded == 40
    assert graph.build({"x0": x0, "y": y}, ["x0", "y"], max_nodes=100).collapsed == "none"


# --- the SVG ------------------------------------------------------------------------------------


def test_svg_is_accessible_and_self_contained(example):
    namespace, names, g = example
    svg = graph.render_svg(g, id_prefix="ag-test", title="Autograd graph of the example")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    assert root.get("width") == "100%" and root.get("viewBox").startswith("0 0 ")
    width = float(root.get("viewBox").split()[2])
    assert root.get("style") == f"max-width: {root.get('viewBox').split()[2]}px"
    assert width < 600, "too wide to stay legible on a 375 px phone"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert root.get("aria-labelledby") == title.get("id") and root.get("aria-describedby") == desc.get("id")
    assert title.text == "Autograd graph of the example" and desc.text == g.description()
    for name in names:
        assert name in desc.text
    assert svg.isascii()
    assert root.find(f".//{SVG}script") is None and "javascript:" not in svg
    assert re.findall(r"https?://[^\"]+", svg) == ["http://www.w3.org/2000/svg"]  # the namespace only
    assert not re.search(r"0x[0-9a-f]{6,}", svg), "a memory address leaked into the picture"


def test_svg_draws_the_model(example):
    """Catches an SVG that does not draw the model: a node or edge missing, a leaf drawn like an intermediate,
    an edge that does not join its boxes, overlapping boxes."""
    namespace, names, g = example
    root = ET.fromstring(graph.render_svg(g))
    drawn = {el.get("data-node"): el for el in root.iter(f"{SVG}g") if el.get("data-node")}
    assert set(drawn) == {n.id for n in g.nodes}
    boxes = {}
    for node in g.nodes:
        el = drawn[node.id]
        assert el.get("data-kind") == node.kind
        texts = ["".join(t.itertext()) for t in el.iter(f"{SVG}text")]
        assert tuple(texts) == node.lines
        classes = el.get("class").split()
        shape = el.find(f"{SVG}rect")
        if node.kind == "tensor":
            assert texts[0].startswith(node.label or "(unnamed)")
            assert el.get("data-label") == node.label
            # Leaf vs intermediate: class, border (double vs dashed) and the word itself.
            if node.is_leaf:
                assert "ag-leaf" in classes and len(el.findall(f"{SVG}rect")) == 2 and "leaf" in texts[0]
            else:
                assert "ag-intermediate" in classes and shape.get("stroke-dasharray") and "intermediate" in texts[0]
        else:  # an autograd node: a pill
            assert float(shape.get("rx")) == pytest.approx(float(shape.get("height")) / 2, abs=0.1)
        boxes[node.id] = tuple(float(shape.get(k)) for k in ("x", "y", "width", "height"))
    edges = [p for p in root.iter(f"{SVG}path") if p.get("data-from")]
    assert sorted((p.get("data-from"), p.get("data-to"), p.get("data-kind")) for p in edges) == sorted(
        (e.source, e.target, e.kind) for e in g.edges
    )
    for path in edges:
        # From the bottom of the source box, downwards, to the top of the target box.
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
        (x0, y0), (x1, y1) = numbers[:2], numbers[-2:]
        sx, sy, sw, sh = boxes[path.get("data-from")]
        tx, ty, tw, th = boxes[path.get("data-to")]
        assert y0 == pytest.approx(sy + sh, abs=0.1) and sx <= x0 <= sx + sw
        assert y1 == pytest.approx(ty, abs=0.1) and tx <= x1 <= tx + tw
        assert y1 > y0
    # No two nodes overlap.
    items = list(boxes.values())
    for i, (ax, ay, aw, ah) in enumerate(items):
        for bx, by, bw, bh in items[i + 1 :]:
            assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay


DRAW_ALL = """
from fieldnotes.torch import graph
from tests import test_graph as t

for key in sorted(t.EXAMPLES):
    make, names = t.EXAMPLES[key]
    print(graph.render_svg(graph.build(make(), names), title=key))
print(graph.render_svg(graph.build(t.deep_mlp(), ["loss", "model"])))
"""


def test_svg_is_the_same_bytes_in_every_process():
    """Catches anything that depends on the process: ids from id() or addresses, set or hash ordering
    (PYTHONHASHSEED differs between the two runs), unrounded floats."""

    def draw(seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", DRAW_ALL], cwd=ROOT, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    first = draw("1")
    assert first.count("<svg") == len(EXAMPLES) + 1
    assert draw("2") == first


# --- the fence ----------------------------------------------------------------------------------


@pytest.fixture
def copy(tmp_path) -> Path:
    """A copy of the project's snippets, to edit."""
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets")
    return tmp_path


def make_fence(root: Path, reuse: bool = False, execute: bool = True) -> dict:
    """The fence as a build of the project in `root` makes it (its store reusing nothing, unless `reuse`)."""
    store = Store(root, reuse=reuse)
    return graph_fence.make_fence(store, Scheduler(root), 60, page=lambda: "docs/page.md", execute=execute)


def fence(source: str, root: Path) -> str:
    entry = make_fence(root)
    assert entry["name"] == entry["class"] == "autograd-graph"
    return entry["format"](source, "autograd-graph", "autograd-graph", {}, None)


def test_fence_draws_the_current_snippet(copy):
    source = "snippet: grad_none/seed.py\ntensors: a b c\ncaption: The graph of `c`\n"
    html = fence(source, copy)
    assert html.startswith('<figure class="autograd-graph" data-search-exclude>')
    assert "<figcaption>The graph of <code>c</code>" in html
    root = ET.fromstring(html[html.index("<svg") : html.index("</svg>") + 6])
    assert root.find(f"{SVG}title").text == graph_fence.parse(source, copy).title
    drawn = ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") in ("ag-title", "ag-fn-name")]
    assert sorted(drawn) == [
        "AccumulateGrad",
        "AddBackward0",
        "MulBackward0",
        "a \u00b7 leaf",
        "b \u00b7 intermediate",
        "c \u00b7 intermediate",
    ]
    assert fence(source, copy) == html  # two runs, two processes, the same bytes

    seed = copy / "snippets" / "grad_none" / "seed.py"
    seed.write_text(seed.read_text().replace("b = a * 3", "b = a.exp()"))
    changed = fence(source, copy)
    assert changed != html
    changed = changed[: changed.index("</svg>")]  # under it, the recorded steps' diff names the old nodes
    assert "ExpBackward0" in changed and "MulBackward0" not in changed


def test_fence_output_has_no_snippet_output(copy):
    # The seed prints values and two UserWarnings before the diagram: none of it leaks into the page.
    html = fence("snippet: grad_none/seed.py\ntensors: a b c", copy)
    assert "UserWarning" not in html and "True tensor(3.)" not in html and "<<<" not in html


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("snippet: grad_none/seed.py\ntensors: a d", "no variable 'd'"),
        ("snippet: grad_none/missing.py\ntensors: a", "snippets/grad_none/missing.py does not exist"),
        ("snippet: ../pyproject.toml\ntensors: a", "not a .py file under snippets/"),
        ("snippet: grad_none/seed.py", "no `tensors:` line"),
        ("snippet: grad_none/seed.py\ntensors: a\ncolour: red", "is not one of the `key: value` lines"),
        ("snippet: grad_none/seed.py\ntensors: a\ncollapse: all", "`collapse: all` is not one of"),
        ("snippet: retain_grad/retain_graph_error.py\ntensors: a", "failed (exit code 1)"),
    ],
)
def test_fence_problems_are_warnings_and_shown(copy, caplog, source, problem):
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.fieldnotes"):
        html = fence(source, copy)
    assert "could not be drawn" in html and "<svg" not in html
    (record,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert record.getMessage().startswith("fieldnotes: docs/page.md: the autograd-graph of ")
    assert problem in record.getMessage()


def test_fence_in_a_strict_build(project):
    project.snippet("demo/chain.py", "import torch\n\na = torch.ones(2, requires_grad=True)\nb = a.exp()\n", "")
    project.page("index.md", "# Demo\n\n```autograd-graph\nsnippet: demo/chain.py\ntensors: a b\ncaption: `b`\n```\n")
    result = project.build()
    assert result.returncode == 0, result.stderr
    page = (project.path / "site" / "index.html").read_text()
    assert 'class="ag-graph"' in page and "ExpBackward0" in page

    project.page("broken.md", "# Broken\n\n```autograd-graph\nsnippet: demo/chain.py\ntensors: a z\n```\n")
    result = project.build()
    assert result.returncode != 0
    assert "docs/broken.md: the autograd-graph of snippets/demo/chain.py could not be drawn" in result.stderr


def test_fence_runs_nothing_when_the_build_executes_nothing(copy, caplog, monkeypatch):
    monkeypatch.setattr(graph_fence.runner, "run_snippet", lambda *a, **k: pytest.fail("a snippet ran"))
    entry = make_fence(copy, execute=False)
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.fieldnotes"):
        html = entry["format"]("snippet: grad_none/seed.py\ntensors: a b c", "autograd-graph", "", {}, None)
    assert "Autograd graph not drawn" in html and "<svg" not in html
    assert not caplog.records


def test_fence_cache_reuses_a_diagram_only_while_nothing_changed(copy, monkeypatch):
    runs = []
    real = graph_fence.runner.run_snippet
    monkeypatch.setattr(graph_fence.runner, "run_snippet", lambda *a, **k: runs.append(a[1]) or real(*a, **k))
    entry = make_fence(copy, reuse=True)
    source = "snippet: grad_none/seed.py\ntensors: a b c"
    first = entry["format"](source, "autograd-graph", "", {}, None)
    assert entry["format"](source, "autograd-graph", "", {}, None) == first and len(runs) == 1
    # Drawn again, from the same run: the build's scheduler runs a diagram's snippet once.
    assert entry["format"](source + "\ncaption: new", "autograd-graph", "", {}, None) != first and len(runs) == 1

    seed = copy / "snippets" / "grad_none" / "seed.py"
    seed.write_text(seed.read_text().replace("b = a * 3", "b = a.exp()"))
    assert "ExpBackward0" in entry["format"](source, "autograd-graph", "", {}, None) and len(runs) == 2
    helper = copy / "snippets" / "grad_none" / "_helper.py"
    helper.write_text("X = 1\n")
    seed.write_text("import _helper\n" + seed.read_text())
    entry["format"](source, "autograd-graph", "", {}, None)
    assert len(runs) == 3
    helper.write_text("X = 2\n")  # a helper the snippet imports is in the key too
    entry["format"](source, "autograd-graph", "", {}, None)
    assert len(runs) == 4

    broken = "snippet: grad_none/seed.py\ntensors: nope"
    for _ in range(2):  # a failure is not stored: it fails, and warns, every build (each its own fence)
        assert "could not be drawn" in make_fence(copy, reuse=True)["format"](broken, "autograd-graph", "", {}, None)
    assert len(runs) == 6


def test_graph_crosses_processes_as_data_unchanged(example):
    """Catches a field lost or altered on the way from the snippet's process (emit) to the MkDocs process
    (extract), where the graph is laid out and drawn."""
    namespace, names, g = example
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        print("what the snippet printed")
        graph.emit(namespace, {"tensors": names, "collapse": "none"})
    received, problem = graph.extract(output.getvalue())
    assert problem is None and received == g  # every field but the live objects (Node.ref)
    assert graph.render_svg(received) == graph.render_svg(g)


def test_drawing_needs_no_torch():
    """Catches the MkDocs process importing torch to lay out and draw a diagram."""
    code = (
        "import json, sys\n"
        "from fieldnotes.torch import graph\nfrom fieldnotes.torch import graph_fence\n"
        "data = {'nodes': [{'id': 'n0', 'kind': 'tensor', 'label': 'a', 'lines': ['a \u00b7 leaf'],"
        " 'is_leaf': True, 'grad': 'None'}],"
        " 'edges': [], 'names': ['a'], 'collapsed': 'none'}\n"
        "svg = graph.render_svg(graph.Graph.from_data(data))\n"
        "assert svg.startswith('<svg') and 'torch' not in sys.modules, sorted(sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_diagram_cache_key_covers_the_code_that_draws(copy, monkeypatch, tmp_path):
    """Catches a cached diagram that outlives a change to the graph code or the fence: the key must cover
    every module of it (listed here from the files themselves), and change with each one."""
    package = [m.name for m in pkgutil.iter_modules(graph.__path__)]
    assert len(package) >= 5  # build, describe, layout, svg, protocol (and the model)
    expected = {Path(importlib.import_module(f"fieldnotes.torch.graph.{m}").__file__).resolve() for m in package}
    expected |= {Path(graph.__file__).resolve(), Path(graph_fence.__file__).resolve()}
    assert {p.resolve() for p in graph_fence.drawing_code()} == expected
    (tmp_path / "code").mkdir()
    copies = [Path(shutil.copy(p, tmp_path / "code" / p.name)) for p in graph_fence.drawing_code()]
    monkeypatch.setattr(graph_fence, "drawing_code", lambda: copies)
    spec = graph_fence.parse("snippet: grad_none/seed.py\ntensors: a b c", copy)
    store = Store(copy)
    keys = [graph_fence.cache_key(store, spec)]
    assert graph_fence.cache_key(store, spec) == keys[0]
    for module in copies:
        module.write_text(module.read_text() + "\n# an edit\n")
        keys.append(graph_fence.cache_key(store, spec))
    assert len(set(keys)) == len(copies) + 1


def test_wide_graphs_are_folded_into_narrow_rows():
    # loss = sum of eight terms: one row would hold eight leaves, far too wide for a phone.
    namespace = {f"w{i}": torch.ones(2, requires_grad=True) for i in range(8)}
    namespace["loss"] = sum((w * (i + 1)).sum() for i, w in enumerate(namespace.values()))
    g = graph.build(namespace, ["loss"] + [f"w{i}" for i in range(8)])
    lay = graph.layout(g)
    rows: dict[float, list] = {}
    for box in lay.boxes.values():
        rows.setdefault(round(box.y + box.h / 2, 1), []).append(box)
    for row in rows.values():
        assert len(row) == 1 or sum(b.w for b in row) + graph.GAP_X * (len(row) - 1) <= graph.MAX_ROW
    assert lay.width < 1.5 * graph.MAX_ROW


# --------------------------------------------------------------------------------------------------
# Diagrams run beside the examples


class _Recording(Scheduler):
    """A scheduler that records what is submitted, and runs nothing."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, preload=())
        self.submitted: list[tuple[str, float, str | None]] = []

    def submit(self, snippet, timeout, then=None, done=None, priority=None, same=None, before=None):
        self.submitted.append((snippet, timeout, then, priority))


def test_every_diagram_of_the_pages_is_submitted_when_the_files_are_known(copy):
    """Catches a diagram's run asked for only when its page renders (the build waits for it there, one
    diagram at a time, beside idle cores), or a fence that does not parse submitted at all."""
    page = (
        "# A page\n\n```autograd-graph\nsnippet: grad_none/seed.py\ntensors: a b c\n```\n\n"
        "- item\n\n    ```autograd-graph\n    snippet: hooks/seed.py\n    tensors: x\n    ```\n\n"
        "```autograd-graph\nsnippet: grad_none/seed.py\nnot a key\n```\n"
    )
    scheduler = _Recording(copy)
    pages = [blocks.parse(page), blocks.parse("# No diagram\n")]
    graph_fence.start(Store(copy, reuse=False), scheduler, 20, pages)
    assert [(snippet, timeout, priority) for snippet, timeout, _, priority in scheduler.submitted] == [
        ("snippets/grad_none/seed.py", 20, float("inf")),  # before the examples: the pages' notebooks wait
        ("snippets/hooks/seed.py", 20, float("inf")),
    ]
    assert "'tensors': ['a', 'b', 'c']" in scheduler.submitted[0][2]


def test_a_run_asked_again_is_the_run_asked_first(tmp_path):
    """Catches a diagram run twice in a build (submitted at on_files, asked again by its page and by its
    page's notebook): the second ask must get the first run, not start another."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "count.py").write_text("with open('runs', 'a') as f:\n    f.write('run\\n')\n")
    store, scheduler = Store(tmp_path, reuse=False), Scheduler(tmp_path, preload=())
    (tmp_path / "snippets" / "seed.py").write_text("import torch\na = torch.ones(2, requires_grad=True)\nb = a * 2\n")
    spec = graph_fence.parse("snippet: seed.py\ntensors: a b", tmp_path)
    first = graph_fence.submit(store, scheduler, spec, 60)
    assert graph_fence.submit(store, scheduler, spec, 60) is first
    assert (
        graph_fence.submit(store, scheduler, graph_fence.parse("snippet: seed.py\ntensors: a", tmp_path), 60)
        is not first
    )
    once = scheduler.submit("snippets/count.py", 60, same="count")
    assert scheduler.submit("snippets/count.py", 60, same="count") is once and once.result().exit_code == 0
    assert scheduler.run("snippets/count.py", 60, same="count") is once.result()
    assert (tmp_path / "runs").read_text() == "run\n"
    scheduler.close()
