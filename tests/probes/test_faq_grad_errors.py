"""Probes of the general sentences on faq/autograd-grad-inputs.md and faq/hook-size.md. Counter-cases: an
input that does not require grad and the output never used, allow_unused=True, requires_grad_() after the
forward pass; a hook named with def, a dtype change, a leaf's hook, a hook returning None."""

from __future__ import annotations

import torch

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/autograd-grad-inputs.md"
HOOK_PAGE = "faq/hook-size.md"
NOT_REQUIRE = "One of the differentiated Tensors does not require grad"


def test_autograd_grad_refuses_an_input_that_does_not_require_grad_used_or_not():
    """Sentence: '`autograd.grad` raises whether or not the output was computed from such a tensor, and
    `allow_unused=True` does not silence it'."""
    assert_on_page(PAGE, "`autograd.grad` raises whether or not the output was computed from such a tensor")
    w, x, z = torch.ones(3, requires_grad=True), torch.ones(3), torch.ones(3)
    y = (w * x).sum()
    assert raises(lambda: torch.autograd.grad(y, [w, x], retain_graph=True)) == NOT_REQUIRE
    assert raises(lambda: torch.autograd.grad(y, [w, z], retain_graph=True)) == NOT_REQUIRE
    assert raises(lambda: torch.autograd.grad(y, [w, x], allow_unused=True, retain_graph=True)) == NOT_REQUIRE
    unused = torch.ones(3, requires_grad=True)
    assert torch.autograd.grad(y, [w, unused], allow_unused=True)[1] is None


def test_requires_grad_after_the_forward_pass_is_too_late():
    """Sentence: 'Calling `x.requires_grad_()` after the forward pass is too late: the output was computed
    without recording `x`, and `autograd.grad` then raises `appears to not have been used in the graph`'."""
    assert_on_page(PAGE, "Calling `x.requires_grad_()` after the forward pass is too late")
    w, x = torch.ones(3, requires_grad=True), torch.ones(3)
    y = (w * x).sum()
    x.requires_grad_()
    assert "appears to not have been used in the graph" in raises(lambda: torch.autograd.grad(y, [w, x]))


def _backward_with_hook(hook, leaf: bool):
    w = torch.ones(4, requires_grad=True)
    target = w if leaf else w * 2
    target.register_hook(hook)
    (target * 1).sum().backward()
    return w.grad


def clip(grad):
    return grad[:2]


def test_the_message_names_the_hook_and_a_dtype_change_has_its_own():
    """Sentences: 'The name in quotes is the hook's `__name__`, or `<unknown>` if it has none (a
    `functools.partial`): a lambda's is `<lambda>`, and a hook defined as `def clip(grad)` is named
    `hook 'clip'`' (before: 'the hook function's `__name__`', which a partial and a callable object
    break, reader 4, L5: both print `<unknown>`), 'A hook that returns another dtype, device or
    layout raises `has changed the type of value` instead. Both are checked on a leaf's hooks and an
    intermediate's alike.' Before: '... another dtype raises ...', true but read with 'A tensor of the
    gradient's shape and dtype' below as all a returned tensor must keep, which the meta device and a
    sparse layout break (reader 3, L11)."""
    assert_on_page(
        HOOK_PAGE, "A hook that returns another dtype, device or layout raises `has changed the type of value`"
    )
    assert_on_page(HOOK_PAGE, "The name in quotes is the hook's `__name__`, or `<unknown>` if it has none")
    import functools

    class Callable:
        def __call__(self, grad):
            return grad[:1]

    nameless = (functools.partial(lambda grad, k: grad[:k], k=1), Callable())
    assert not any(hasattr(h, "__name__") for h in nameless)
    assert_on_page(HOOK_PAGE, "Both are checked on a leaf's hooks and an intermediate's alike.")
    for leaf in (True, False):
        message = raises(lambda leaf=leaf: _backward_with_hook(lambda g: g.mean(), leaf))
        assert message == "hook '<lambda>' has changed the size of value"
        assert raises(lambda leaf=leaf: _backward_with_hook(clip, leaf)) == "hook 'clip' has changed the size of value"
        for hook in nameless:
            message = raises(lambda leaf=leaf, hook=hook: _backward_with_hook(hook, leaf))
            assert message == "hook '<unknown>' has changed the size of value"
        for other in (lambda g: g.double(), lambda g: g.to("meta"), lambda g: g.to_sparse()):
            typed = raises(lambda leaf=leaf, other=other: _backward_with_hook(other, leaf))
            assert typed.startswith("hook '<lambda>' has changed the type of value")


def test_a_hook_that_only_looks_returns_none_and_keeps_the_gradient():
    """Sentences: 'A tensor of the gradient's shape, dtype, device and layout, or `None`' and 'a hook that
    only looks returns `None`, which keeps the gradient as it was'. Counter-cases: an element-wise change
    keeps the shape and is accepted, and so is a tensor of that shape, dtype, device and layout that is
    not contiguous (an expanded row)."""
    assert_on_page(HOOK_PAGE, "A tensor of the gradient's shape, dtype, device and layout, or `None`;")
    strided = _backward_with_hook(lambda g: torch.full((1,), 3.0).expand(4), False)
    assert torch.equal(strided, torch.full((4,), 6.0))
    assert_on_page(HOOK_PAGE, "a hook that only looks returns `None`, which keeps the gradient as it was")
    seen = []
    for leaf in (True, False):
        grad = _backward_with_hook(lambda g: seen.append(g.shape), leaf)
        assert torch.equal(grad, torch.full((4,), 1.0 if leaf else 2.0))
    assert torch.equal(_backward_with_hook(lambda g: g.clamp(-1, 1) * 0.5, False), torch.ones(4))


def test_a_hook_that_got_none_may_return_only_none():
    """Sentence: 'a hook that got `None` may return only `None`'. Before, without it, loose (reader 7): a
    hook on chunk()'s unused output gets None, and a tensor it returns raises. Counter-cases: returning
    None there passes; on a leaf's sibling output used by the loss a tensor is accepted."""
    assert_on_page(HOOK_PAGE, "a hook that got `None` may return\nonly `None`.")
    x = torch.randn(4, requires_grad=True)
    used, unused = (x * 1).chunk(2)
    unused.register_hook(lambda g: torch.zeros(2))
    message = raises(lambda: used.sum().backward())
    assert "can't replace a None gradient with a non-None value" in message
    used, unused = (x * 1).chunk(2)
    got = []
    unused.register_hook(lambda g: got.append(g))
    used.sum().backward()
    assert got == [None]
    used, unused = (x * 1).chunk(2)
    used.register_hook(lambda g: torch.zeros(2))
    (used.sum() + unused.sum()).backward()
