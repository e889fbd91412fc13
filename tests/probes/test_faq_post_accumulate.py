"""Probes of the post-accumulate section of faq/tensor-hooks.md that brought its message back:
'post accumulate grad hooks cannot be registered on non-leaf tensors'. Counter-cases: a non-leaf that
retains its gradient, a layer's output, a parameter (accepted), a tensor that does not require grad."""

from __future__ import annotations

import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/tensor-hooks.md"
MESSAGE = "post accumulate grad hooks cannot be registered on non-leaf tensors"


def test_refused_on_every_non_leaf_even_one_that_retains_its_gradient():
    """Sentences: 'torch raises this when `register_post_accumulate_grad_hook` is called on a tensor that
    is not a leaf, such as a layer's output' and 'torch refuses the hook even on a non-leaf that calls
    `retain_grad()`, whose `.grad` accumulates too'. Before: 'Gradients accumulate into a leaf's `.grad`
    only, so there is no accumulation for such a hook to follow', which a retained non-leaf breaks
    (reader 3, F3): its `.grad` goes from 12 to 24 over two passes. Counter-cases: a parameter
    (accepted), a tensor that does not require grad (another message), and the non-leaf result of every
    op_db entry (refused, retained or not)."""
    from tests.probes import _op_sweep

    assert_on_page(
        PAGE, "torch refuses the hook even on a non-leaf that calls `retain_grad()`, whose `.grad` accumulates too"
    )
    layer = nn.Linear(2, 2)
    out = layer(torch.ones(1, 2))
    assert raises(lambda: out.register_post_accumulate_grad_hook(print)) == MESSAGE
    out.retain_grad()
    assert raises(lambda: out.register_post_accumulate_grad_hook(print)) == MESSAGE
    layer.weight.register_post_accumulate_grad_hook(print)
    assert "doesn't require gradient" in raises(lambda: torch.ones(2).register_post_accumulate_grad_hook(print))
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    b.retain_grad()
    c = b * b
    c.backward(retain_graph=True)
    first = b.grad.clone()
    c.backward()
    assert torch.equal(first, torch.tensor(12.0)) and torch.equal(b.grad, torch.tensor(24.0))
    refused = 0
    for entry, sample in _op_sweep.first_samples(lambda t: t * 1):
        for result in _op_sweep.tensors(_op_sweep.run(entry.op, sample, sample.input) or []):
            if result.is_leaf:
                continue
            if refused % 2:
                result.retain_grad()
            assert raises(lambda r=result: r.register_post_accumulate_grad_hook(print)) == MESSAGE, entry.name
            refused += 1
    assert refused >= 500, refused


def test_the_backward_pass_reaches_the_output_before_the_weight():
    """Sentence: 'the backward pass reaches `out` before the weight behind it'."""
    assert_on_page(PAGE, "the backward pass reaches `out` before the weight behind it")
    order = []
    layer = nn.Linear(2, 2)
    out = layer(torch.ones(1, 2))
    layer.weight.register_post_accumulate_grad_hook(lambda p: order.append("weight"))
    out.register_hook(lambda g: order.append("out"))
    out.sum().backward()
    assert order == ["out", "weight"]
