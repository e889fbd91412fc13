"""Probes of the general sentences on faq/hook-size.md (faq/autograd-grad-inputs.md has none left: its
sentences describe its examples). Counter-cases: a leaf's hook and an intermediate's, a hook returning
None, a non-contiguous tensor of the gradient's shape."""

from __future__ import annotations

import torch

from tests.probes._sentence import assert_on_page, raises

HOOK_PAGE = "faq/hook-size.md"


def _backward_with_hook(hook, leaf: bool):
    w = torch.ones(4, requires_grad=True)
    target = w if leaf else w * 2
    target.register_hook(hook)
    (target * 1).sum().backward()
    return w.grad


def test_the_name_in_quotes_is_the_lambdas():
    """Sentence: 'The name in quotes, `<lambda>`, is the `__name__` of the lambda registered above.'
    Catches: torch naming the hook otherwise (its repr, or `<unknown>` for a lambda). The wider rule
    (a partial prints `<unknown>`, a def'd hook its name) was cut: no example on the page showed it."""
    assert_on_page(HOOK_PAGE, "The name in quotes, `<lambda>`, is the `__name__` of the lambda registered above.")
    hook = lambda g: g.mean()  # noqa: E731
    assert hook.__name__ == "<lambda>"
    for leaf in (True, False):
        message = raises(lambda leaf=leaf: _backward_with_hook(hook, leaf))
        assert message == "hook '<lambda>' has changed the size of value"


def test_a_hook_that_only_looks_returns_none_and_keeps_the_gradient():
    """Sentences: 'A tensor of the gradient's shape, dtype, device and layout, or `None`' and 'a hook that
    only looks returns `None`, which keeps the gradient as it was'. Counter-cases: an element-wise change
    keeps the shape and is accepted, and so is a tensor of that shape, dtype, device and layout that is
    not contiguous (an expanded row)."""
    assert_on_page(HOOK_PAGE, "A tensor of the gradient's shape, dtype, device and layout, or `None`.")
    strided = _backward_with_hook(lambda g: torch.full((1,), 3.0).expand(4), False)
    assert torch.equal(strided, torch.full((4,), 6.0))
    assert_on_page(HOOK_PAGE, "a hook that only looks returns `None`, which keeps the gradient as it was")
    seen = []
    for leaf in (True, False):
        grad = _backward_with_hook(lambda g: seen.append(g.shape), leaf)
        assert torch.equal(grad, torch.full((4,), 1.0 if leaf else 2.0))
    assert torch.equal(_backward_with_hook(lambda g: g.clamp(-1, 1) * 0.5, False), torch.ones(4))
