"""Probes of the general sentences on faq/checkpoint.md. Counter-cases: a tensor that requires grad
inside a list, use_reentrant=False, an optimizer step with the block's .grad None."""

from __future__ import annotations

import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

from tests.probes._sentence import assert_on_page

PAGE = "faq/checkpoint.md"
WARNING = "None of the inputs have requires_grad=True. Gradients will be None"


def _run(x, use_reentrant):
    torch.manual_seed(0)
    block, head = nn.Linear(4, 4), nn.Linear(4, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = checkpoint(block, x, use_reentrant=use_reentrant)
    head(h).sum().backward()
    return [str(w.message) for w in caught], h, block, head


def test_reentrant_checkpoint_of_data_only_freezes_the_block_and_says_so():
    """Sentences: 'warns this when none of its arguments is a tensor that requires grad', 'With no input
    requiring grad, the block's output does not require grad', 'Nothing raises: an optimizer then skips the
    block's weights, and they never change.' Before: 'warns this when none of the tensors passed to it
    requires grad', loose (reader 10, L4): the reentrant variant looks only at its arguments themselves, so
    a tensor that requires grad passed inside a list still gets the warning, and the block's output does
    not require grad (/tmp/reader10/p13.py: "reentrant tensor in list rg: ['None of the inputs have
    requires_grad=True. Gradie'] h.rg False"). Counter-cases: such a tensor in a list and in a tuple."""
    assert_on_page(PAGE, "warns this when none of its arguments is a tensor that requires grad")
    for wrap in (list, tuple):
        block = nn.Linear(4, 4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            listed = wrap([torch.randn(2, 4, requires_grad=True)])
            h = checkpoint(lambda xs, block=block: block(xs[0]), listed, use_reentrant=True)
        assert [str(w.message) for w in caught] == [WARNING] and not h.requires_grad
    assert_on_page(PAGE, "Nothing raises: an optimizer then skips the block's weights, and they never change.")
    caught, h, block, head = _run(torch.randn(2, 4), use_reentrant=True)
    assert caught == [WARNING] and not h.requires_grad
    assert block.weight.grad is None and head.weight.grad is not None
    before = block.weight.detach().clone()
    torch.optim.SGD([*block.parameters(), *head.parameters()], lr=0.1, momentum=0.9).step()
    assert torch.equal(before, block.weight)


def test_use_reentrant_false_gives_the_block_gradients():
    """Sentence: '`use_reentrant=False`. Its output requires grad when the block's parameters do'.
    Counter-case: use_reentrant=False with a frozen block."""
    assert_on_page(PAGE, "Its output requires grad when the block's parameters do")
    caught, h, block, _ = _run(torch.randn(2, 4), use_reentrant=False)
    assert caught == [] and h.requires_grad and block.weight.grad is not None
    frozen = nn.Linear(4, 4).requires_grad_(False)
    assert not checkpoint(frozen, torch.randn(2, 4), use_reentrant=False).requires_grad
