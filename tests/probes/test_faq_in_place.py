"""Probes of the general sentences on faq/in-place.md: in-place on intermediates, the version counter,
the nn.init functions, detach() against .data. Counter-cases: views from unbind/split, inference
tensors, a write through .data, every public nn.init function."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/in-place.md"


@pytest.mark.parametrize("split", ["unbind", "split", "chunk"])
def test_views_from_a_function_returning_several_are_refused_at_once(split):
    """Sentence: 'One kind is refused at once: a view returned by a function that returns several views,
    such as `unbind()` or `split()`.' Counter-case for 'In-place operations on intermediates are allowed,
    until the backward pass needs the value': the same write on a view from plain slicing is allowed."""
    assert_on_page(PAGE, "a view returned by a function that returns several views, such as `unbind()` or `split()`")
    a = torch.randn(2, 3, requires_grad=True)
    first = getattr(a * 1, split)(1) if split != "unbind" else (a * 1).unbind()
    assert "is a view and is being modified inplace" in raises(lambda: first[0].mul_(2))
    sliced = (a * 1)[0]
    sliced.mul_(2)
    sliced.sum().backward()
    assert a.grad is not None


def test_the_version_counter():
    """Sentence: 'Every tensor (except one made under `torch.inference_mode()`) has a version counter that
    each in-place operation on it, or on a view of it, increments (a write through `.data` does not'.
    Counter-cases: an in-place op under no_grad (counted too), a view's write (counted on the base)."""
    assert_on_page(PAGE, "has a version counter that each in-place operation on it, or on a view of it, increments")
    t = torch.zeros(3)
    t.add_(1)
    with torch.no_grad():
        t.mul_(2)
    t[1:].zero_()
    assert t._version == 3
    t.data.add_(1)
    assert t._version == 3
    with torch.inference_mode():
        inference = torch.zeros(3)
    assert "do not track version counter" in raises(lambda: inference._version)


@pytest.mark.parametrize("name", [n for n in dir(nn.init) if n.endswith("_") and not n.startswith("_")])
def test_nn_init_functions_need_no_no_grad(name):
    """Sentence: 'The functions of `torch.nn.init` already work without recording, so they need no
    `no_grad()` around them'. Counter-case: every public one, on a leaf that requires grad."""
    assert_on_page(PAGE, "The functions of `torch.nn.init` already work without recording")
    w = torch.randn(4, 4, 3, requires_grad=True) if name == "dirac_" else torch.randn(4, 4, requires_grad=True)
    getattr(nn.init, name)(w, *((0.5,) if name in ("constant_", "sparse_") else ()))
    assert w.is_leaf and w.grad_fn is None


def test_detach_write_raises_and_data_write_is_silent():
    """Sentences: 'Through `detach()`, the change counts against the original's version counter, so ...
    `backward()` raises' and 'The same write through `.data` is invisible to autograd'. Counter-case: an
    operation that saves its input instead of its output (mul), written through each."""
    assert_on_page(PAGE, "The same write through `.data` is invisible to autograd")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * b
    b.detach().zero_()
    assert "modified by an inplace operation" in raises(lambda: c.sum().backward())
    b = a * 1
    c = b * b
    b.data.zero_()
    c.sum().backward()
    assert torch.equal(a.grad, torch.zeros(2))
