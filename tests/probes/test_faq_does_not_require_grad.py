"""Probes of the general sentences on faq/does-not-require-grad.md (the "element 0" answer).

Each test quotes its sentence, checks the page still says it, and tries it on the counter-case an
expert would try first. The weakening each catches: the sentence widened back to what torch breaks.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

from tests.probes._op_sweep import call, first_samples, tensors
from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/does-not-require-grad.md"
MESSAGE = "of tensors does not require grad and does not have a grad_fn"


def test_element_index_is_the_position_among_the_tensors_given():
    """Sentence: '"Element 0" is the loss's position among the tensors `backward` was given'. Counter-cases:
    two tensors given, the second outside the graph (element 1), then the first (element 0)."""
    assert_on_page(PAGE, '"Element 0" is the loss\'s position among the tensors `backward` was given')
    w = torch.randn(3, requires_grad=True)
    inside, outside = (w * 2).sum(), torch.tensor(1.0)
    assert raises(lambda: torch.autograd.backward([inside, outside])) == f"element 1 {MESSAGE}"
    inside = (w * 2).sum()
    assert raises(lambda: torch.autograd.backward([outside, inside])) == f"element 0 {MESSAGE}"


def _model_and_data():
    torch.manual_seed(0)
    return nn.Linear(4, 1), torch.randn(8, 4)


@pytest.mark.parametrize("cause", ["no_grad", "inference_mode", "detach", "frozen", "item", "numpy"])
def test_each_cause_leaves_a_loss_without_grad_fn(cause):
    """Sentences: the five causes (and `torch.inference_mode()` beside no_grad) each give the error.
    Counter-case for 'a frozen model': it raises only when the input does not require grad either
    (tested below); for detach: detaching anywhere between the parameters and the loss."""
    assert_on_page(PAGE, "**`torch.no_grad()`** (or `torch.inference_mode()`)")
    model, x = _model_and_data()
    if cause == "no_grad":
        with torch.no_grad():
            loss = model(x).sum()
    elif cause == "inference_mode":
        with torch.inference_mode():
            loss = model(x).sum()
    elif cause == "detach":
        # detached in the middle, not at the end
        loss = (model(x).detach() * 2).exp().sum()
    elif cause == "frozen":
        loss = model.requires_grad_(False)(x).sum()
    elif cause == "item":
        loss = torch.tensor(model(x).sum().item())
    else:
        loss = torch.tensor(np.square(model(x).detach().numpy()).mean())
    assert loss.grad_fn is None and not loss.requires_grad
    assert raises(loss.backward) == f"element 0 {MESSAGE}"


def test_a_frozen_model_raises_only_with_an_input_that_does_not_require_grad():
    """Sentence: '`requires_grad_(False)` on every parameter ... and an input that does not require grad
    leave nothing to differentiate.' Counter-case: the same frozen model on an input that requires
    grad (a saliency map) runs backward and fills the input's .grad."""
    assert_on_page(PAGE, "and an input that does not require grad leave nothing to differentiate")
    model, x = _model_and_data()
    model.requires_grad_(False)
    x.requires_grad_()
    model(x).sum().backward()
    assert x.grad is not None and model.weight.grad is None


def test_nothing_under_no_grad_is_recorded_but_in_enable_grad():
    """Sentence: 'nothing inside it is recorded, but in a nested `torch.enable_grad()` under `no_grad()`'.
    Counter-cases: an operation, a module and an in-place one under each mode; enable_grad() nested in
    inference_mode() records nothing (the words without "but ..." missed the nested enable_grad)."""
    assert_on_page(PAGE, "nothing inside it is recorded, but in a nested `torch.enable_grad()` under `no_grad()`")
    w = torch.randn(3, requires_grad=True)
    layer = nn.Linear(3, 1)

    def recorded():
        h = w * 1
        h.add_(1)
        return [t.grad_fn is not None for t in (w * 2, layer(w), h)]

    for mode in (torch.no_grad, torch.inference_mode):
        with mode():
            assert recorded() == [False, False, False]
            with torch.enable_grad():
                assert recorded() == [mode is torch.no_grad] * 3


def test_eval_leaves_grad_mode_alone():
    """Sentence: '`model.eval()` is not a cause: it ... leaves grad mode alone'. Counter-case: a model
    with dropout and batch norm, the layers eval() changes."""
    assert_on_page(PAGE, "`model.eval()` is not a cause")
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Dropout(0.5), nn.Linear(4, 1))
    model.eval()
    assert torch.is_grad_enabled()
    loss = model(torch.randn(8, 4)).sum()
    assert loss.grad_fn is not None
    loss.backward()
    assert model[0].weight.grad is not None


def test_autograd_grad_and_a_second_differentiation_give_the_same_message():
    """Sentence: 'The same message comes from `torch.autograd.grad` when the output is outside the graph,
    and from differentiating a gradient a second time without `create_graph=True`'."""
    assert_on_page(PAGE, "The same message comes from `torch.autograd.grad`")
    x = torch.tensor(3.0, requires_grad=True)
    assert raises(lambda: torch.autograd.grad(torch.tensor(1.0), x)) == f"element 0 {MESSAGE}"
    (g,) = torch.autograd.grad(x**3, x)
    assert raises(lambda: torch.autograd.grad(g, x)) == f"element 0 {MESSAGE}"


def test_a_detached_leaf_cuts_off_only_what_is_computed_from_it_alone():
    """Sentences: 'Each cause below makes a leaf that does not require grad somewhere between the
    parameters and the loss, so nothing computed only from it is recorded' and '`detach()` on the
    output, or on every path between the parameters and the loss'. Before: 'nothing after it is
    recorded' and 'on anything between', which a detached branch beside a kept one breaks: the loss is
    recorded and the weight gets a gradient. Counter-case: the detached leaf times a tensor that
    requires grad (recorded)."""
    assert_on_page(PAGE, "so nothing computed only from it is recorded")
    assert_on_page(PAGE, "or on every path between the parameters and the loss")
    model, x = _model_and_data()
    h = model(x)
    (h.detach() + h).pow(2).mean().backward()
    assert model.weight.grad is not None
    w = torch.ones(1, requires_grad=True)
    assert (h.detach() * w).grad_fn is not None
    assert (h.detach() * 2).grad_fn is None


def _recorded(op, sample) -> bool:
    """Whether any output of the operator on the sample has a grad_fn (a call that raises recorded
    nothing: unsafe_chunk raises on its sample under inference_mode())."""
    try:
        return any(t.grad_fn is not None for t in tensors(call(op, sample)))
    except Exception:
        return False


def test_op_db_records_nothing_under_no_grad_but_in_a_nested_enable_grad():
    """Sentence: 'nothing inside it is recorded, but in a nested `torch.enable_grad()` under
    `no_grad()`', over torch's operator database: every entry on its first float32 sample, an input
    that requires grad. Under no_grad() and inference_mode() no output gets a grad_fn; enable_grad()
    nested in no_grad() records every entry that records with grad mode on, nested in
    inference_mode() none."""
    assert_on_page(PAGE, "nothing inside it is recorded, but in a nested `torch.enable_grad()` under `no_grad()`")
    recorded_eagerly = 0
    for op, sample in first_samples(lambda t: t):
        if not _recorded(op, sample):
            continue
        recorded_eagerly += 1
        for mode in (torch.no_grad, torch.inference_mode):
            with mode():
                assert _recorded(op, sample) is False, (op.name, mode.__name__)
                with torch.enable_grad():
                    assert _recorded(op, sample) is (mode is torch.no_grad), (op.name, mode.__name__)
    assert recorded_eagerly > 400, recorded_eagerly


def test_the_cut_is_the_first_tensor_without_requires_grad_from_the_parameters_on():
    """Sentence: 'print `requires_grad` and `grad_fn` of the tensors on the way from the parameters to the
    output: the first one with `requires_grad=False` is where the graph stops.' Before: '... from the
    output back to the inputs: the first one ...', false (reader 7): when torch raises this error the
    output itself has requires_grad=False, so walking back the first such tensor is always the output.
    Counter-cases: the cut made by detach(), by no_grad(), and by .item() turned back into a tensor."""
    assert_on_page(PAGE, "on the way from the\nparameters to the output: the first one with `requires_grad=False`")

    def under_no_grad(h):
        with torch.no_grad():
            return h * 1

    w = torch.randn(3, requires_grad=True)
    for cut in (lambda h: h.detach(), under_no_grad, lambda h: torch.tensor(h.sum().item())):
        h = w * 2
        c = cut(h)
        loss = (c * 3).sum()
        flags = [t.requires_grad for t in (w, h, c, loss)]
        assert flags[-1] is False  # the output: a walk back would stop there at once
        assert flags.index(False) == 2  # walking forward, the first False is the cut
