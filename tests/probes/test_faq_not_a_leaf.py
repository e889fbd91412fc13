"""Probes of the general sentences on faq/not-a-leaf.md. Counter-cases: a dtype change on the CPU, a
plain tensor that requires grad assigned to a module."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page, prose

PAGE = "faq/not-a-leaf.md"


@pytest.mark.parametrize(
    ("move", "stays_a_leaf"),
    [
        (lambda w: w.to("cpu"), True),
        (lambda w: w.cpu(), True),
        (lambda w: w.to("cpu", torch.float64), False),
        (lambda w: w.to(torch.float64), False),
        (lambda w: w.to("meta"), False),
        (lambda w: w.to("cpu", copy=True), False),
        (lambda w: w.to("cpu:0"), False),
        (lambda w: w.to(torch.device("cpu", 0)), False),
    ],
)
def test_a_move_on_the_cpu_keeps_the_leaf_unless_the_dtype_changes(move, stays_a_leaf):
    """Sentence: '`.to("cpu")` on a CPU tensor returns the tensor itself, still a leaf'. Counter-cases, moves
    the words do not name: `.to("cpu", copy=True)`, a copy (it broke the words before, 'Moving a CPU tensor to
    "cpu" returns the tensor itself'), another dtype, `"cpu:0"` (a device a CPU tensor's `cpu` does not
    equal, reader 9, L1). Cut: 'On the CPU, a `.to()` that changes the dtype gives a non-leaf, and so does
    `.to("cpu:0")`', which no example on the page showed and `.to(torch.int64)` breaks (a leaf)."""
    assert_on_page(PAGE, '`.to("cpu")` on a CPU tensor returns the tensor itself, still a leaf')
    assert "that changes the dtype gives a non-leaf" not in prose(PAGE)
    w = torch.randn(3, requires_grad=True)
    assert move(w).is_leaf is stays_a_leaf


def test_assigning_a_plain_tensor_to_a_module():
    """Sentence: 'Assigning a plain tensor to a new module attribute does not register anything'.
    Counter-case: a plain tensor that requires grad (neither a parameter nor a buffer either)."""
    assert_on_page(PAGE, "Assigning a\nplain tensor to a new module attribute does not register anything")
    model = nn.Module()
    model.plain = torch.ones(3)
    model.grad_tensor = torch.ones(3, requires_grad=True)
    assert list(model.parameters()) == [] and list(model.buffers()) == []


def test_model_to_keeps_each_parameter_a_parameter():
    """Sentence: '`model.to(device)`, which moves each parameter and keeps it a parameter'. Counter-case: a
    frozen parameter, and a change of dtype."""
    assert_on_page(PAGE, "which moves each parameter and keeps it a parameter")
    model = nn.Linear(2, 2)
    model.bias.requires_grad_(False)
    model.to("meta", torch.float64)
    for p in model.parameters():
        assert isinstance(p, nn.Parameter) and p.is_leaf and p.device.type == "meta"
    assert not model.bias.requires_grad


def test_reshape_and_slicing_give_non_leaves():
    """Sentence: 'With grad mode on, `reshape` and slicing of a leaf that requires grad are no different:
    each returns a new, non-leaf tensor'. Counter-cases: a reshape to the same shape, `w[...]`, `w[:]`;
    and the same under no_grad(), which broke the words without "With grad mode on": leaves there."""
    assert_on_page(PAGE, "With grad mode on, `reshape` and slicing of a leaf that requires grad are no")
    w = torch.randn(4, requires_grad=True)
    for t in (w.reshape(4), w.reshape(2, 2), w[...], w[:], w[1:]):
        assert t is not w and not t.is_leaf
    with torch.no_grad():
        assert all(t.is_leaf for t in (w.reshape(2, 2), w[:], w[1:]))


def test_retain_grad_on_the_view_gives_the_view_its_gradient():
    """Sentence: 'If you really want the gradient with respect to the view itself, call `retain_grad()` on
    the view before `backward()`'. Counter-case: called after backward (nothing stored)."""
    assert_on_page(PAGE, "call `retain_grad()` on the view before `backward()`")
    flat = torch.randn(4, requires_grad=True)
    square = flat.view(2, 2)
    square.retain_grad()
    (square**2).sum().backward()
    assert square.grad.shape == (2, 2) and torch.equal(square.grad, 2 * square.detach())
    late = flat.view(2, 2)
    (late**2).sum().backward()
    late.retain_grad()
    assert late.grad is None
