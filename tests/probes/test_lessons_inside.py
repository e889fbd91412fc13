"""Probes of the general sentences on docs/inside-the-graph.md (moved there from the first lesson).
Counter-cases: a write through a view (what grad_fn names), a factory and a Parameter made under
no_grad, enable_grad inside it, views in inference mode, a frozen weight in front of an inference tensor, a
.grad set before freezing, an optimizer given every parameter."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.conftest import ROOT
from tests.probes._sentence import assert_on_page

PAGE = "inside-the-graph.md"


def test_a_leaf_that_requires_grad_is_reached_through_accumulate_grad():
    """Sentence: 'A leaf made with `requires_grad=True` is reached through an `AccumulateGrad` node, which
    puts the gradient into its `.grad`'. Before: 'A leaf that requires grad ...', which a view taken under
    `no_grad()` breaks (reader 4, F6): a leaf that requires grad, and `(v * 3).grad_fn.next_functions` is
    `((None, 0), (None, 0))`. Counter-cases: an `nn.Parameter`, a leaf used twice (one node, the sum),
    a leaf made with `requires_grad=True` in inference mode, that view, and a retained intermediate,
    which gets its `.grad` without one (the words are about leaves)."""
    assert_on_page(PAGE, "A leaf made with `requires_grad=True` is reached through an `AccumulateGrad` node")
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        v = w[:2]
    assert v.is_leaf and v.requires_grad and (v * 3).grad_fn.next_functions == ((None, 0), (None, 0))
    with torch.inference_mode():
        inference = torch.ones(2, requires_grad=True)
    (node, _), _ = (inference * 2).grad_fn.next_functions
    assert type(node).__name__ == "AccumulateGrad" and node.variable is inference
    p = nn.Parameter(torch.tensor(2.0))
    b = p * 3
    c = b * p
    nodes = [n for n, _ in c.grad_fn.next_functions]
    accumulate = [n for n in nodes if type(n).__name__ == "AccumulateGrad"]
    assert len(accumulate) == 1 and accumulate[0].variable is p
    assert accumulate[0] is next(n for n, _ in b.grad_fn.next_functions)
    b.retain_grad()
    c.backward()
    assert torch.equal(p.grad, torch.tensor(12.0)) and torch.equal(b.grad, torch.tensor(2.0))


def test_what_eval_and_no_grad_did_to_the_examples_model():
    """Sentences: '- After `model.eval()` autograd still records: the output is not a leaf, and it requires
    grad.' and '- Under `torch.no_grad()` this model's output is a leaf that does not require grad: autograd
    recorded no operation.' Before (issue 42's reader): '`model.eval()` switches layers such as dropout and
    batch norm to evaluation behaviour' (no example shows it), 'Under `torch.no_grad()` autograd records no
    operation: this model's output is a leaf [...] (a model that returns its input, or a view of it, as
    `nn.Identity` or `nn.Flatten` do, returns what requires grad if the input does). A factory called
    there with `requires_grad=True`, and an `nn.Parameter` made there, still require grad, and
    `torch.enable_grad()` inside it turns recording back on.', and, at the top of the page,
    '`torch.no_grad()` and `torch.inference_mode()` stop the recording; `model.eval()` does not': corner
    cases no example shows, cut to what the example's `nn.Linear` does. Checks: the example's model, in
    both modes. Counter-cases, why the words speak of this model only: under `no_grad()`, `nn.Identity`
    returns its input that requires grad, a factory with `requires_grad=True` requires grad, and
    `enable_grad()` inside records; in eval mode a model with dropout and batch norm still records."""
    assert_on_page(PAGE, "- After `model.eval()` autograd still records: the output is not a leaf, and it requires")
    assert_on_page(PAGE, "the output is not a leaf, and it requires grad.")
    assert_on_page(PAGE, "- Under `torch.no_grad()` this model's output is a leaf that does not require grad: autograd")
    assert_on_page(PAGE, "recorded no operation.")
    snippet = (ROOT / "snippets/leaves/modes.py").read_text(encoding="utf-8")
    assert "model = nn.Linear(3, 1)" in snippet and "model.eval()" in snippet
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    x = torch.randn(2, 3)
    model.eval()
    out = model(x)
    assert not out.is_leaf and out.requires_grad and out.grad_fn is not None
    with torch.no_grad():
        out = model(x)
        factory = torch.zeros(3, requires_grad=True)
        passed = nn.Identity()(x.requires_grad_())
        with torch.enable_grad():
            recorded = model(x)
    assert out.is_leaf and not out.requires_grad and out.grad_fn is None
    assert factory.requires_grad and passed.requires_grad and not recorded.is_leaf
    dropout_batch_norm = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5)).eval()
    assert not dropout_batch_norm(torch.randn(2, 3)).is_leaf
    text = " ".join((ROOT / "docs" / PAGE).read_text(encoding="utf-8").split())
    assert "dropout and batch norm" not in text and "stop the recording" not in text


def test_every_operator_reaches_a_leaf_made_with_requires_grad_through_accumulate_grad():
    """Sentence: 'A leaf made with `requires_grad=True` is reached through an `AccumulateGrad` node', over
    torch's operator database: each op_db entry on its first sample, its input a leaf made by
    `torch.empty_like(..., requires_grad=True)` and filled under no_grad(). Every node of the result's
    graph that holds the leaf (`.variable`) is an `AccumulateGrad`, and every recorded result whose
    gradient reaches the leaf (`torch.autograd.grad`, allow_unused) reaches it through one. Counter-case
    (reader 4, F6): the same operators on a view of that leaf taken under no_grad() reach no node."""
    import warnings

    from tests.probes import _op_sweep

    assert_on_page(PAGE, "A leaf made with `requires_grad=True` is reached through an `AccumulateGrad` node")
    reached = 0
    for _, entry, sample in _op_sweep.entries():
        leaf = torch.empty_like(sample.input, requires_grad=True)
        with torch.no_grad():
            leaf.copy_(sample.input)
        for result in _op_sweep.run(entry.op, sample, leaf) or ():
            if result.grad_fn is None or not result.is_floating_point():
                continue
            holders, todo, seen = [], [result.grad_fn], set()
            while todo:
                node = todo.pop()
                if node is None or node in seen:
                    continue
                seen.add(node)
                if getattr(node, "variable", None) is leaf:
                    holders.append(node)
                todo.extend(n for n, _ in node.next_functions)
            assert all(type(n).__name__ == "AccumulateGrad" for n in holders), entry.name
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    (grad,) = torch.autograd.grad(result.sum(), leaf, allow_unused=True)
                except RuntimeError:  # a result whose backward torch does not implement
                    continue
            if grad is not None:
                assert holders, entry.name
                reached += 1
    assert reached >= 400, reached


def test_grad_fn_names_the_operation_torch_ran_not_always_the_call():
    """Sentence: 'A `grad_fn` is named after the operation torch ran, not always the call you wrote:
    `torch.matmul` of two matrices records `MmBackward0`.' Before (issue 42's reader, L5): 'An intermediate
    that is not a view has a `grad_fn` naming the last operation autograd recorded on it, in place or not.
    A write through a view of it leaves a `CopySlices` node instead. The name is of the operation torch
    ran, ...': a write through `h.detach()`, or through a view under no_grad(), leaves none (the two
    sentences before it cut, with their probes and their sweep over op_db's in-place operators; no
    example on the page shows an in-place write). Before that, new with reader 9's L2: 'naming the last
    operation autograd recorded' alone let a reader look for the call they wrote, while a call made of other operations
    records the last of them (/tmp/reader9/p7.py), and the cheat sheet sends readers to
    `t.grad_fn.name()` to see which operation made a tensor. Cases: `torch.matmul` and `@` of two matrices
    (`MmBackward0`), `F.linear` with no bias on a 3-D input (`UnsafeViewBackward0`, not a view), and
    `contiguous()` of a transpose (`CloneBackward0`). Counter-case: a call that is itself the operation
    recorded (`x * 2`, `MulBackward0`)."""
    assert_on_page(PAGE, "A `grad_fn` is named after the operation torch ran, not always the call you wrote:")
    assert_on_page(PAGE, "`torch.matmul` of two matrices records `MmBackward0`.")
    x = torch.randn(2, 3, requires_grad=True)
    w = torch.randn(4, 3, requires_grad=True)
    for made, name in (
        (torch.matmul(x, w.t()), "MmBackward0"),
        (x @ w.t(), "MmBackward0"),
        (torch.nn.functional.linear(x.unsqueeze(0), w), "UnsafeViewBackward0"),
        (x.t().contiguous(), "CloneBackward0"),
        (x * 2, "MulBackward0"),
    ):
        assert not made._is_view() and made.grad_fn.name() == name, (made.grad_fn.name(), name)
    # the cut sentence's counter-cases: a write through a view records CopySlices, not the call written;
    # through `detach()` or under no_grad() it records nothing
    h = torch.ones(4, requires_grad=True) * 2
    h.detach()[0].mul_(2)
    with torch.no_grad():
        h[1:].mul_(2)
    assert h.grad_fn.name() == "MulBackward0"
    h[0].mul_(2)
    assert h.grad_fn.name() == "torch::autograd::CopySlices"


def test_the_gradient_of_a_copied_weight_goes_to_the_leaf_before_the_copy():
    """Sentence: 'the leaf before the copy is the one that gets the gradient'. Counter-case: `.to()` to
    the meta device, and `* 0.01` (the words speak of `.to()`; the same holds)."""
    assert_on_page(PAGE, "the leaf before the copy is the one that gets the gradient")
    # 'Below, `w` is made by `.to()` to another floating-point dtype, so it is the output of a
    # `ToCopyBackward0` node' (the snippet's `w`). Before: 'A tensor made by `.to()` to another floating-point
    # dtype or device is the output of a `ToCopyBackward0` node', which an inference tensor made with
    # requires_grad=True breaks (reader 4, L2): outside inference mode its `.to()` records CopyBackwards;
    # before that, 'another dtype', which an integer dtype breaks (no node)
    assert_on_page(PAGE, "Below, `w` is made by `.to()` to another floating-point dtype, so it is the output of a")
    snippet = (ROOT / "snippets/leaves/non_leaf_param_pitfall.py").read_text(encoding="utf-8")
    assert "w = torch.randn(3, requires_grad=True).to(torch.float64)" in snippet
    v = torch.randn(3, requires_grad=True)
    assert v.to(torch.int64).grad_fn is None and v.to(torch.float64).grad_fn.name() == "ToCopyBackward0"
    for make in (lambda t: t.to(torch.float64), lambda t: t * 0.01):
        w = make(torch.randn(3, requires_grad=True))
        (w**2).sum().backward()
        leaf = w.grad_fn.next_functions[0][0].variable
        assert leaf.is_leaf and leaf.grad is not None


def test_a_device_change_records_a_copy():
    """Sentence: '`w.to("cuda")` and `w.cuda()` record the same copy'. This machine has no GPU: the probe
    moves to the meta device as the page does (it cannot try cuda itself)."""
    assert_on_page(PAGE, '`w.to("cuda")` and `w.cuda()` record the same copy')
    w = torch.randn(4, requires_grad=True)
    moved = w.to("meta")
    assert moved.grad_fn.name() == "ToCopyBackward0" and not moved.is_leaf
    if torch.cuda.is_available():
        assert w.cuda().grad_fn.name() == "ToCopyBackward0"


def test_detach_gives_a_leaf_that_shares_memory():
    """Sentence: '`detach()` returns a new tensor that is cut out of the graph: a leaf with
    `requires_grad=False` [...] It is not a copy: it shares memory with the original'. Counter-cases: a
    view, a leaf; and `detach().clone()`, which does not share."""
    assert_on_page(PAGE, "It is not a copy: it shares memory with the original")
    w = torch.ones(4, requires_grad=True)
    for t in (w * 2, (w * 2)[1:], w):
        d = t.detach()
        assert d.is_leaf and not d.requires_grad and d is not t
        assert d.data_ptr() == t.data_ptr()
        assert t.detach().clone().data_ptr() != t.data_ptr()


def test_inference_mode_outputs_are_inference_tensors():
    """Sentence: '`torch.inference_mode()` records nothing either, and the model's output is an inference
    tensor'. Before: '...and marks what it computes as an inference tensor', which a view of a normal
    tensor breaks (REVIEW.md, 10). Counter-cases: that view, a normal tensor changed in place there."""
    assert_on_page(
        PAGE, "`torch.inference_mode()` records nothing either, and the model's output is an inference tensor"
    )
    model = nn.Linear(3, 1)
    x = torch.ones(4)
    with torch.inference_mode():
        out = model(torch.randn(2, 3))
        view = x[:2]
        x.add_(1)
    assert out.is_inference() and out.is_leaf
    assert not view.is_inference() and not x.is_inference()


def test_linear_refuses_an_inference_input_only_while_its_weight_requires_grad():
    """Sentence: '`nn.Linear` saves its input to compute its weight's gradient, so, while that weight
    requires grad, an inference tensor cannot be its input in a recorded computation'. Before: without
    'while that weight requires grad', which a frozen weight breaks (REVIEW.md, 12). And 'Compute such
    tensors under `torch.no_grad()`, or `clone()` them outside inference mode'."""
    assert_on_page(
        PAGE, "while that weight requires grad, an inference tensor cannot be its input in a recorded computation"
    )
    with torch.inference_mode():
        features = torch.randn(2, 3) * 2
    model = nn.Linear(3, 1)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        model(features)
    model.weight.requires_grad_(False)
    model(features).sum().backward()
    assert model.bias.grad is not None
    model.weight.requires_grad_(True)
    model(features.clone()).sum().backward()
    with torch.no_grad():
        plain = torch.randn(2, 3) * 2
    model(plain).sum().backward()
    assert model.weight.grad is not None


def test_backward_leaves_a_frozen_parameters_grad_as_it_was():
    """Sentence: 'They stay leaves, and `backward()` leaves their `.grad` as it was'. Before: '...leaves
    their `.grad` at `None`', which a gradient from before the freeze breaks (REVIEW.md, 13). And 'Give the
    optimizer only the parameters that require grad': an optimizer with momentum given every parameter
    still moves the frozen ones."""
    assert_on_page(PAGE, "They stay leaves, and `backward()` leaves their `.grad` as it was")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    everything = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(16, 4)
    model(x).pow(2).mean().backward()
    everything.step()
    stale = model[0].weight.grad.clone()
    for p in model[0].parameters():
        p.requires_grad_(False)
    model(x).pow(2).mean().backward()
    assert model[0].weight.is_leaf
    assert torch.equal(model[0].weight.grad, stale)
    before = model[0].weight.detach().clone()
    everything.step()
    assert not torch.equal(before, model[0].weight)
