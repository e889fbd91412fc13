"""Probes of the general sentences on docs/inside-the-graph.md (moved there from the first lesson).
Counter-cases: an in-place change (what grad_fn names), a factory and a Parameter made under no_grad,
enable_grad inside it, views in inference mode, a frozen weight in front of an inference tensor, a
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


def test_no_grad_and_inference_mode_stop_recording_and_eval_does_not():
    """Sentence: '`torch.no_grad()` and `torch.inference_mode()` stop the recording; `model.eval()` does
    not'. Counter-cases: dropout and batch norm in eval mode, `enable_grad()` inside `no_grad()` (the
    bullet below says it turns recording back on)."""
    assert_on_page(PAGE, "`torch.no_grad()` and `torch.inference_mode()` stop the recording; `model.eval()` does not")
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Dropout(0.5)).eval()
    x = torch.randn(2, 3)
    assert not model(x).is_leaf
    with torch.no_grad():
        assert model(x).is_leaf
        with torch.enable_grad():
            assert not model(x).is_leaf
    with torch.inference_mode():
        assert model(x).is_leaf


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


NOT_A_VIEW = "An intermediate that is not a view has a `grad_fn` naming the last operation autograd recorded on"
THROUGH_A_VIEW = "A write through a view of it leaves a `CopySlices` node instead"


def test_grad_fn_names_the_last_operation_autograd_recorded():
    """Sentence: 'An intermediate that is not a view has a `grad_fn` naming the last operation autograd
    recorded on it, in place or not. A write through a view of it leaves a `CopySlices` node instead.'
    Before: 'Each intermediate's `grad_fn` names the last operation autograd recorded on it (after an
    in-place operation on the tensor itself, that operation ...)', which a view written in place breaks
    (reader 3, F1): `v = h[:2]; v.mul_(2)` gives `v` an AsStridedBackward0, not MulBackward0, and so does a
    write to its base. Before that: 'the operation that last produced its value', which an in-place write
    autograd does not record breaks: `h.mul_(5)` under no_grad() and `h.logical_not_()` leave
    MulBackward0. Counter-cases: `h.mul_(3)`, `h.add_(1)` with a view of `h` alive, `h[0].mul_(2)`."""
    assert_on_page(PAGE, NOT_A_VIEW)
    assert_on_page(PAGE, "recorded on it, in place or not. " + THROUGH_A_VIEW)
    for unrecorded, mode in ((lambda h: h.mul_(5), torch.no_grad), (lambda h: h.logical_not_(), torch.enable_grad)):
        w = torch.ones(2, requires_grad=True)
        h = w * 3
        with mode():
            unrecorded(h)
        assert h.grad_fn.name() == "MulBackward0"
        h.sum().backward()
        assert torch.equal(w.grad, torch.full((2,), 3.0))
    w = torch.ones(4, requires_grad=True)
    h = w * 2
    assert h.grad_fn.name() == "MulBackward0"
    before = h[1:]
    h.add_(1)
    assert h.grad_fn.name() == "AddBackward0"
    assert before.grad_fn.name() == "AsStridedBackward0"  # a view: outside the words
    h.mul_(3)
    assert h.grad_fn.name() == "MulBackward0"
    h[0].mul_(2)
    assert h.grad_fn.name() == "torch::autograd::CopySlices"
    for make in (lambda h: h[:2], lambda h: h.view(2, 2), lambda h: h.t()):
        h = torch.ones(2, 2, requires_grad=True) * 1
        v = make(h)
        v.mul_(2)
        assert v.grad_fn.name() == "AsStridedBackward0"
        assert h.grad_fn.name() == "torch::autograd::CopySlices"


def test_grad_fn_names_the_operation_torch_ran_not_always_the_call():
    """Sentence: 'The name is of the operation torch ran, not always the call you wrote: `torch.matmul` of
    two matrices records `MmBackward0`.' New with reader 9's L2: 'naming the last operation autograd
    recorded' alone let a reader look for the call they wrote, while a call made of other operations
    records the last of them (/tmp/reader9/p7.py), and the cheat sheet sends readers to
    `t.grad_fn.name()` to see which operation made a tensor. Cases: `torch.matmul` and `@` of two matrices
    (`MmBackward0`), `F.linear` with no bias on a 3-D input (`UnsafeViewBackward0`, not a view), and
    `contiguous()` of a transpose (`CloneBackward0`). Counter-case: a call that is itself the operation
    recorded (`x * 2`, `MulBackward0`)."""
    assert_on_page(PAGE, "The name is of the operation torch ran, not always the call you wrote:")
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


def test_grad_fn_after_every_in_place_operator_is_that_operation_when_recorded():
    """The same sentences over torch's operator database: on a non-leaf `h = x * 1`, the in-place variant
    of every op_db entry that has one, with grad mode on and under no_grad(). Recorded (grad mode on, not
    in operators.out's list of in-place operators autograd does not record): `h.grad_fn` is a new node.
    Not recorded: it is still the MulBackward0 node `x * 1` made. Through the view `h.view_as(h)`, with
    grad mode on: a recorded write (one that changes a value of `h`) gives `h` a CopySlices node, whatever the
    operator."""
    from tests.probes import _op_sweep

    assert_on_page(PAGE, NOT_A_VIEW)
    assert_on_page(PAGE, THROUGH_A_VIEW)
    not_recorded = _op_sweep.recorded_list("in place, are not recorded")
    checked = through_a_view = 0
    for name, entry, sample in _op_sweep.entries():
        inplace = entry.inplace_variant
        if inplace is None:
            continue
        for mode in (torch.enable_grad, torch.no_grad):
            x = _op_sweep.fresh(sample.input, True)
            h = x * 1
            before = h.grad_fn
            if _op_sweep.run(inplace, sample, h, mode()) is None:
                continue
            checked += 1
            recorded = mode is torch.enable_grad and name not in not_recorded
            assert (h.grad_fn is not before) is recorded, (name, mode.__name__, h.grad_fn.name())
        x = _op_sweep.fresh(sample.input, True)
        h = x * 1
        old = h.detach().clone()
        if name in not_recorded or _op_sweep.run(inplace, sample, h.view_as(h)) is None:
            continue
        if ((old == h) | (old.isnan() & h.isnan())).all():
            continue  # nothing written: `t_()`, `squeeze_()`, `as_strided_()` change only the view's shape
        through_a_view += 1
        assert h.grad_fn.name() == "torch::autograd::CopySlices", (name, h.grad_fn.name())
    assert checked >= 250 and through_a_view >= 100, (checked, through_a_view)


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


def test_what_no_grad_makes():
    """Sentence: 'Under `torch.no_grad()` autograd records no operation: the model's output is a leaf that
    does not require grad. A factory called there with `requires_grad=True`, and an `nn.Parameter` made
    there, still require grad, and `torch.enable_grad()` inside it turns recording back on'. Before:
    '`torch.no_grad()` records nothing: what it computes is a leaf that does not require grad', which
    all three break (REVIEW.md, 9). One more counter-case: a view taken there of an intermediate is a
    leaf that requires grad, and has no edge into the graph (not an operation autograd recorded)."""
    assert_on_page(
        PAGE, "A factory called there with `requires_grad=True`, and an `nn.Parameter` made there, still require grad"
    )
    assert_on_page(PAGE, "a model that returns its input, or a view of it, as `nn.Identity` or `nn.Flatten` do")
    w = torch.ones(3, requires_grad=True)
    h = w * 2
    model = nn.Linear(3, 1)
    with torch.no_grad():
        out = model(torch.randn(2, 3))
        factory = torch.zeros(3, requires_grad=True)
        parameter = nn.Parameter(torch.zeros(3))
        view = h[:2]
        with torch.enable_grad():
            recorded = w * 2
    assert out.is_leaf and not out.requires_grad
    assert factory.requires_grad and parameter.requires_grad
    assert not recorded.is_leaf
    assert view.is_leaf and view.requires_grad and view.grad_fn is None
    x = torch.ones(2, 3, requires_grad=True)
    with torch.no_grad():
        passed = [nn.Identity()(x), nn.Flatten()(x)]
    assert all(t.requires_grad for t in passed), "returned as it came, or as a view"


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
