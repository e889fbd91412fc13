"""Probes of the general sentences on faq/backward-twice.md. Counter-cases: retain_graph=True and
create_graph=True on the first pass, a .grad set before, zero_grad on a frozen parameter."""

from __future__ import annotations

import warnings

import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/backward-twice.md"


def test_a_backward_pass_frees_saved_tensors_unless_retained():
    """Sentence: 'a backward pass frees those saved tensors, unless it is given `retain_graph=True` (or
    `create_graph=True`, which implies it)'."""
    assert_on_page(PAGE, "unless it is given `retain_graph=True` (or `create_graph=True`, which implies it)")
    for keep in ({"retain_graph": True}, {"create_graph": True}):
        a = torch.tensor(2.0, requires_grad=True)
        shared = a.exp()
        with warnings.catch_warnings():
            # create_graph=True in backward() warns of the cycle that a.grad = None breaks below
            warnings.simplefilter("ignore")
            shared.backward(**keep)
        shared.backward()
        a.grad = None
    a = torch.tensor(2.0, requires_grad=True)
    shared = a.exp()
    shared.backward()
    assert "a second time" in raises(shared.backward)


def test_zero_grad_sets_to_none_by_default():
    """Sentence: '`zero_grad()` sets each `.grad` to `None` by default'. Counter-cases: set_to_none=False
    (zeros), a frozen parameter with no .grad (stays None)."""
    assert_on_page(PAGE, "`zero_grad()` sets each `.grad` to `None` by default")
    model = nn.Linear(2, 1)
    model.bias.requires_grad_(False)
    model(torch.randn(3, 2)).sum().backward()
    model.zero_grad(set_to_none=False)
    assert torch.equal(model.weight.grad, torch.zeros(1, 2)) and model.bias.grad is None
    model.zero_grad()
    assert model.weight.grad is None


def test_the_sum_and_two_passes_agree_up_to_rounding():
    """Sentence: 'Both give the same gradient, up to floating-point rounding'. Counter-case (the
    reviewer's): a 64-wide MLP with two losses on a shared output, where the two orders of adding differ
    in the last bits; they agree within float32 rounding."""
    assert_on_page(PAGE, "Both give the same gradient, up to floating-point rounding")
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64))
    x = torch.randn(32, 64)

    def losses():
        shared = net(x)
        return shared.pow(2).mean(), shared.sin().sum()

    first, second = losses()
    (first + second).backward()
    summed = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    first, second = losses()
    first.backward(retain_graph=True)
    second.backward()
    for s, t in zip(summed, (p.grad for p in net.parameters()), strict=True):
        assert torch.allclose(s, t, rtol=1e-4, atol=1e-5)


def _saved_weights(h: torch.Tensor, weights) -> set[int]:
    """Which of `weights` (by id) the graph behind h saved for backward."""
    saved, seen, todo = set(), set(), [h.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attribute in dir(node):
            if attribute.startswith("_saved_"):
                value = getattr(node, attribute)
                for w in weights:  # Linear-like layers save the weight transposed
                    if isinstance(value, torch.Tensor) and any(
                        value.shape == v.shape and torch.equal(value, v) for v in (w, w.t())
                    ):
                        saved.add(id(w))
        todo += [n for n, _ in node.next_functions]
    return saved


def test_step_0_saves_no_weight_and_step_1_saves_weight_hh():
    """Sentences: 'step 0's graph saved no weight, since its starting state needed no gradient. Step 1's
    graph saved the hidden-to-hidden weight (`cell.weight_hh`, ...)'. Before: 'those earlier graphs saved
    the weights as they were when they ran', which step 0 breaks (it saved only its inputs). Counter-case:
    the input-to-hidden weight, which step 1 does not save either (its input needs no gradient)."""
    assert_on_page(PAGE, "step 0's graph saved no weight, since its starting state needed no gradient")
    torch.manual_seed(0)
    cell = nn.RNNCell(2, 3)
    weights = [cell.weight_ih, cell.weight_hh]
    h0 = cell(torch.randn(1, 2), torch.zeros(1, 3))
    assert _saved_weights(h0, weights) == set()
    h1 = cell(torch.randn(1, 2), h0)
    assert _saved_weights(h1, weights) == {id(cell.weight_hh)}
    assert cell.weight_hh.shape == (3, 3)
