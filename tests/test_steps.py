"""The backward pass as steps (fieldnotes.torch.steps): the recorded values are torch's, recording them
changes nothing the snippet prints, and a changed step fails the build with a diff until it is recorded
again."""

from __future__ import annotations

import contextlib
import io
import json
import re
import runpy
import warnings

import pytest
import torch

from fieldnotes import record
from fieldnotes.examples import Example
from fieldnotes.jobs import Scheduler
from fieldnotes.torch import steps
from fieldnotes.torch.graph import protocol
from tests.conftest import ROOT, Project, block
from tests.test_graph import contained

RECORDED = sorted(steps.diagram_snippets(ROOT))


def autograd_grads(snippet: str, monkeypatch) -> dict[str, torch.Tensor]:
    """Each leaf's gradient, by the name the recorded steps give it, computed by torch.autograd.grad of
    the snippet's own program: its backward() calls are replaced by autograd.grad of the same roots with
    respect to every leaf they reach (then the real backward runs, for what follows in the snippet)."""
    found: list[tuple[torch.Tensor, torch.Tensor]] = []
    real_backward = torch.Tensor.backward

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        leaves, todo, seen = [], [self.grad_fn], set()
        while todo:
            fn = todo.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            if hasattr(fn, "variable"):
                leaves.append(fn.variable)
            todo.extend(n for n, _ in fn.next_functions)
        grads = torch.autograd.grad(self, leaves, gradient, retain_graph=True)
        found.extend(zip(leaves, grads, strict=True))
        return real_backward(self, gradient, retain_graph, create_graph, inputs)

    monkeypatch.setattr(torch.Tensor, "backward", backward)
    with contained(), warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        namespace = runpy.run_path(str(ROOT / snippet), run_name="__main__")
    names = {}
    modules = [v for k, v in namespace.items() if isinstance(v, torch.nn.Module) and not k.startswith("_")]
    for module in modules:
        names.update({id(p): n for n, p in module.named_parameters()})
    names.update({id(v): k for k, v in namespace.items() if isinstance(v, torch.Tensor) and id(v) not in names})
    return {names[id(leaf)]: grad for leaf, grad in found if id(leaf) in names}


@pytest.mark.parametrize("snippet", RECORDED)
def test_recorded_leaf_gradients_are_what_autograd_grad_computes(snippet, monkeypatch):
    """Catches a recorded value that is not torch's: a gradient written to the wrong leaf, an edge's value
    taken for the sum, a value rounded or shortened wrongly. The oracle is torch.autograd.grad of the same
    program, not the recorder."""
    oracle = autograd_grads(snippet, monkeypatch)
    recorded = json.loads((ROOT / steps.recorded_path(snippet)).read_text())
    checked = 0
    for step in recorded:
        if step["kind"] != "accumulate" or step.get("before") is not None:
            continue
        named = re.match(r"(\S+)'s AccumulateGrad", step["text"])
        if named is None or named.group(1) not in oracle:  # a leaf the snippet never named
            continue
        leaf = named.group(1)
        expected = oracle[leaf].reshape(-1)[: len(step["received"][0]["head"])].tolist()
        assert step["received"][0]["shape"] == list(oracle[leaf].shape)
        assert step["received"][0]["head"] == pytest.approx(expected, rel=1e-3, abs=1e-7), step["text"]
        assert f"{leaf}.grad = " in step["text"]
        checked += 1
    assert checked or not oracle, f"{snippet}: no leaf's gradient checked"


def test_two_paths_add_up_and_the_last_layer_comes_first():
    """Catches steps in another order than torch ran them: the snippets' own hooks printed their order
    (the recorded .out), and the gradients of the two paths to `a` sum to what `a.grad` printed."""
    three = json.loads((ROOT / "snippets/hooks/three_layers.steps.json").read_text())
    hooked = [s["text"].split("'s")[0] for s in three if s["kind"] == "hook"]
    printed = [line.split(":")[0] for line in (ROOT / "snippets/hooks/three_layers.out").read_text().splitlines()]
    assert hooked == printed == ["4.weight", "2.weight", "0.weight"]
    two = json.loads((ROOT / "snippets/leaves/two_paths.steps.json").read_text())
    into_a = [p["head"][0] for s in two for p in s.get("passed", []) if "a's AccumulateGrad" in s["text"]]
    assert sorted(into_a) == [3.0, 4.0]
    assert "a.grad: tensor(7.)" in (ROOT / "snippets/leaves/two_paths.out").read_text()
    assert two[-1]["text"].endswith("writes a.grad = tensor(7.)")


@pytest.mark.parametrize("snippet", RECORDED)
def test_recording_leaves_what_the_snippet_prints(snippet):
    """Catches a recording hook that prints, warns, or changes a gradient the snippet prints: the snippet
    run with its backward pass recorded prints exactly its recorded output."""
    scheduler = Scheduler(ROOT)
    future = scheduler.submit(snippet, 60, then=steps.THEN, before=steps.BEFORE)
    scheduler.close()
    run = future.result()
    assert protocol.own_output(run.output) == Example(ROOT, snippet).recorded()
    assert protocol.extract_steps(run.output) == json.loads((ROOT / steps.recorded_path(snippet)).read_text())


SEED = "import torch\n\na = torch.tensor(2.0, requires_grad=True)\nb = a * 3\nc = b + 1\nc.backward()\nprint(a.grad)\n"


def fence(snippet: str) -> str:
    return f"```autograd-graph\nsnippet: {snippet}\ntensors: a b c\n```\n"


@pytest.fixture(scope="module")
def stepped(tmp_path_factory):
    """A project whose diagrams' steps are recorded, then: one left so, one edited by hand, one whose
    snippet changed (its output re-recorded, not its steps), one never recorded."""
    project = Project(tmp_path_factory.mktemp("steps"))
    names = ["good.py", "tampered.py", "changed.py", "unrecorded.py"]
    for name in names:
        project.snippet(name, SEED, recorded="tensor(3.)\n")
    project.page("index.md", "# Steps\n\n" + "".join(block(n) + "\n" + fence(n) + "\n" for n in names))
    project.write_config()
    assert record.main(project.path, [f"snippets/{n}" for n in names[:3]]) == 0
    tampered = project.path / "snippets/tampered.steps.json"
    tampered.write_text(tampered.read_text().replace("tensor(3.)", "tensor(5.)"))
    changed = project.path / "snippets/changed.py"
    changed.write_text(SEED.replace("a * 3", "a * 4"))
    changed.with_suffix(".out").write_text("tensor(4.)\n")
    result = project.build()
    result.project = project
    return result


def test_a_changed_step_fails_the_build_with_a_diff(stepped):
    """Catches steps not compared at build time, or compared loosely: a value edited in the recorded
    steps, a snippet whose backward pass changed, and a missing recording each fail the strict build."""
    log = stepped.stdout + stepped.stderr
    assert stepped.returncode != 0
    assert "-{\"text\": \"b's MulBackward0 receives tensor(1.) and passes tensor(5.)" in log.replace("    ", "")
    assert re.search(r"\+.*passes tensor\(4\.\) to a's AccumulateGrad", log)
    assert "snippets/unrecorded.py has no recorded backward pass" in log
    page = (stepped.project.path / "site/index.html").read_text()
    assert page.count('<ol class="ag-steps"') == 1  # the good one; the others show their diff instead


def test_recording_again_rewrites_the_steps_with_the_new_values(stepped):
    """Catches `make update-outputs` leaving a changed snippet's steps as they were."""
    root = stepped.project.path
    before = (root / "snippets/changed.steps.json").read_text()
    assert record.main(root, ["snippets/changed.py"]) == 0
    after = (root / "snippets/changed.steps.json").read_text()
    assert "passes tensor(3.) to a's AccumulateGrad" in before
    assert "passes tensor(4.) to a's AccumulateGrad" in after and "tensor(3.)" not in after


def test_the_drift_report_compares_each_backward_pass_with_its_recorded_steps(tmp_path):
    """Catches the drift report leaving the steps out: another torch that passes another value shows as
    a behaviour drift of the steps file, with its diff."""
    from fieldnotes.torch.drift.classify import compare

    (tmp_path / "snippets").mkdir()
    steps.record(tmp_path, "snippets/x.py", [{"text": "a's AccumulateGrad writes a.grad = tensor(3.)"}])
    other = steps.dumps([{"text": "a's AccumulateGrad writes a.grad = tensor(4.)"}])
    collected = {"torch": "2.99.0+cpu", "examples": {}, "steps": {"snippets/x.py": other}}
    (drift,) = compare(tmp_path, collected, None)
    assert (drift.name, drift.verdict, drift.changes) == ("snippets/x.steps.json", "behaviour", ["a number"])
    assert '+{"text": "a\'s AccumulateGrad writes a.grad = tensor(4.)"}' in drift.diff
    collected["steps"]["snippets/x.py"] = steps.recorded(tmp_path, "snippets/x.py")
    assert compare(tmp_path, collected, None)[0].verdict == "same"
