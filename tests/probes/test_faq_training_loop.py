"""Probes of the general sentences on faq/training-loop.md. Counter-cases: other numbers of micro-batches,
the gradient reaching the layer before a frozen one, SGD with momentum only, weight decay only, and the
optimizer built from the trainable parameters."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page

PAGE = "faq/training-loop.md"
mse = nn.functional.mse_loss


def _model_and_batch():
    torch.manual_seed(0)
    return nn.Linear(3, 1), torch.randn(12, 3), torch.randn(12, 1)


def _accumulated(chunks, scale):
    model, x, y = _model_and_batch()
    for xb, yb in zip(x.split(chunks), y.split(chunks), strict=True):
        (mse(model(xb), yb) * scale(len(xb), len(x))).backward()
    return model.weight.grad


def _full():
    model, x, y = _model_and_batch()
    mse(model(x), y).backward()
    return model.weight.grad


@pytest.mark.parametrize("micro", [2, 3, 4, 6])
def test_scaled_micro_batches_give_the_batch_gradient_and_unscaled_k_times_it(micro):
    """Sentences: 'the 4 gradients add up to 4 times the batch's', '`zero_grad()` once before the
    micro-batches and each loss divided by 4 give the batch's gradient', and 'Dividing by the number of
    micro-batches gives the batch's gradient when they are of one size, the loss is a mean, and no layer
    mixes the samples (batch norm does)'. Before: '... is exact when they are of one size and the loss is
    a mean', which a BatchNorm1d layer breaks. Counter-cases: a sum loss, for which no division is
    needed; batch norm, for which division does not give the batch's gradient."""
    assert_on_page(PAGE, "the 4 gradients add up to 4 times the batch's")
    assert_on_page(
        PAGE,
        "Dividing by the number of micro-batches gives the batch's gradient when they are of one size, the loss"
        " is a mean, and no layer mixes the samples (batch norm does).",
    )
    size = 12 // micro
    assert torch.allclose(_accumulated(size, lambda n, total: 1 / micro), _full(), atol=1e-6)
    assert torch.allclose(_accumulated(size, lambda n, total: 1.0), micro * _full(), atol=1e-5)
    model, x, y = _model_and_batch()
    for xb, yb in zip(x.split(size), y.split(size), strict=True):
        mse(model(xb), yb, reduction="sum").backward()
    whole, _, _ = _model_and_batch()
    mse(whole(x), y, reduction="sum").backward()
    assert torch.allclose(model.weight.grad, whole.weight.grad, atol=1e-5)
    torch.manual_seed(0)
    normed = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
    for xb, yb in zip(x.split(size), y.split(size), strict=True):
        (mse(normed(xb), yb) / micro).backward()
    accumulated = normed[0].weight.grad.clone()
    normed.zero_grad()
    mse(normed(x), y).backward()
    assert not torch.allclose(accumulated, normed[0].weight.grad, atol=1e-3)


def test_zero_grad_inside_the_loop_keeps_only_the_last_micro_batch():
    """Sentence: '`zero_grad()` inside the loop drops every micro-batch's gradient but the last'."""
    assert_on_page(PAGE, "`zero_grad()` inside the loop drops every micro-batch's gradient but the last")
    model, x, y = _model_and_batch()
    for xb, yb in zip(x.split(3), y.split(3), strict=True):
        model.zero_grad()
        mse(model(xb), yb).backward()
    last, _, _ = _model_and_batch()
    mse(last(x[9:]), y[9:]).backward()
    assert torch.equal(model.weight.grad, last.weight.grad)


def test_a_frozen_layer_passes_the_gradient_on_unchanged():
    """Sentence: '`requires_grad_(False)` on the layer freezes the layer and nothing else: its weights get
    no `.grad`, and the gradient still flows through it to the layers before it, the same as if it were
    trainable'."""
    assert_on_page(
        PAGE,
        "and the gradient still flows through it to the layers before it, the same as if it were trainable"
    )
    grads = []
    for frozen in (False, True):
        torch.manual_seed(0)
        first, middle, last = (nn.Linear(4, 4) for _ in range(3))
        middle.requires_grad_(not frozen)
        last(middle(first(torch.randn(2, 4)))).sum().backward()
        grads.append(first.weight.grad)
        assert (middle.weight.grad is None) is frozen
    assert torch.equal(*grads)


def _moves(momentum, weight_decay, set_to_none):
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1, momentum=momentum, weight_decay=weight_decay)
    (3 * p).sum().backward()
    opt.step()
    p.requires_grad_(False)
    frozen_at = p.detach().clone()
    for _ in range(3):
        opt.zero_grad(set_to_none=set_to_none)
        opt.step()
    return not torch.equal(frozen_at, p)


def test_sgd_steps_a_zero_grad_with_momentum_or_weight_decay_and_skips_none():
    """Sentences: '`torch.optim.SGD` skips a parameter whose `.grad` is None, and steps one whose `.grad` is
    a tensor, zeros included: the momentum buffer the earlier steps built keeps moving it, and weight decay
    adds `weight_decay * p` to its zero gradient'. Counter-case: the default set_to_none=True (None
    is skipped: no move, with momentum, weight decay or both)."""
    assert_on_page(
        PAGE,
        "`torch.optim.SGD` skips a parameter whose `.grad` is None, and steps one whose `.grad` is a tensor"
    )
    assert _moves(0.9, 0.0, set_to_none=False)
    assert _moves(0.0, 0.01, set_to_none=False)
    for momentum, weight_decay in ((0.9, 0.0), (0.0, 0.01), (0.9, 0.01)):
        assert not _moves(momentum, weight_decay, set_to_none=True)


def test_an_optimizer_built_from_the_trainable_parameters_never_moves_the_frozen_one():
    """Sentence: 'freeze before building the optimizer, and give it only what trains'. Counter-case: the
    frozen weight with zero_grad(set_to_none=False), momentum and weight decay."""
    assert_on_page(PAGE, "freeze before building the optimizer, and give it only what trains")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    model[0].requires_grad_(False)
    trainable = (p for p in model.parameters() if p.requires_grad)
    opt = torch.optim.SGD(trainable, lr=0.1, momentum=0.9, weight_decay=0.1)
    before = model[0].weight.detach().clone()
    for _ in range(3):
        opt.zero_grad(set_to_none=False)
        model(torch.randn(4, 2)).sum().backward()
        opt.step()
    assert torch.equal(before, model[0].weight)


def test_no_grad_and_detach_also_cut_the_gradient_to_the_layers_before():
    """Sentence: 'To freeze a layer, call `requires_grad_(False)` on it. `no_grad()` and `detach()` also
    cut the gradient to the layers before it.' Counter-cases: a fresh stack of three layers, the middle
    one run under no_grad(), or given a detached input, or frozen: only the frozen one leaves the first
    layer its gradient; the frozen layer itself gets none."""
    assert_on_page(PAGE, "To freeze a layer, call `requires_grad_(False)` on it.")
    assert_on_page(PAGE, "`no_grad()` and `detach()` also cut the gradient to the layers before it.")
    torch.manual_seed(0)
    first, middle, last = (nn.Linear(4, 4) for _ in range(3))
    x = torch.randn(2, 4)
    with torch.no_grad():
        h = middle(first(x))
    assert not h.requires_grad  # last(h).sum().backward() would reach no layer before it
    last(middle(first(x).detach())).sum().backward()
    assert first.weight.grad is None and middle.weight.grad is not None
    middle.zero_grad()
    middle.requires_grad_(False)
    last(middle(first(x))).sum().backward()
    assert first.weight.grad is not None and middle.weight.grad is None
