"""Probes of the general sentences on faq/requires-grad.md (integer dtypes, non-leaf flags, enable_grad).

Each test quotes its sentence, checks the page still says it, and tries it on the counter-case an
expert would try first: a non-leaf that does not change, a view and a cast refused, inference mode.
"""

from __future__ import annotations

import pytest
import torch

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/requires-grad.md"


def test_a_float_copy_of_an_index_is_a_disconnected_leaf():
    """Sentence: 'A float copy of an integer result can be made to require grad, but it is a new leaf that
    nothing connects to the tensors it came from'."""
    assert_on_page(PAGE, "but it is a new leaf that nothing connects to the tensors it came from")
    x = torch.randn(4, requires_grad=True)
    copy = x.argmax().float().requires_grad_()
    assert copy.is_leaf
    copy.backward()
    assert x.grad is None


def test_requires_grad_true_on_a_non_leaf_changes_nothing():
    """Sentence: '`requires_grad_()` (that is, `requires_grad_(True)`), is accepted and changes nothing:
    the tensor stays a non-leaf with the same `grad_fn` ..., so its `.grad` stays `None` after
    `backward()`, without an error.' Counter-cases: the issue's `.to(torch.float64)` weight, a view."""
    assert_on_page(PAGE, "is accepted and changes nothing: the tensor stays a non-leaf with the same `grad_fn`")
    w = torch.randn(3, requires_grad=True)
    for t in (w.to(torch.float64), w[1:], w * 0.01):
        node = t.grad_fn
        assert t.requires_grad_() is t
        assert not t.is_leaf and t.grad_fn is node
        t.sum().backward()
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert t.grad is None


def test_requires_grad_false_on_a_non_leaf_is_refused():
    """Sentence: 'Taking it out of the graph, `requires_grad_(False)`, is refused'. Counter-cases: a view
    and a cast (refused too), a leaf (allowed)."""
    assert_on_page(PAGE, "Taking it out of the graph,\n`requires_grad_(False)`, is refused")
    w = torch.randn(3, requires_grad=True)
    expected = "you can only change requires_grad flags of leaf variables."
    for t in (w * 2, w[1:], w.to(torch.float64)):
        assert raises(lambda t=t: t.requires_grad_(False)).startswith(expected)
    assert not w.requires_grad_(False).requires_grad


def test_enable_grad_inside_no_grad_records_only_its_block():
    """Sentences: 'With a `torch.enable_grad()` block: inside it grad mode is on again, even within
    `torch.no_grad()`'; 'Only what runs inside the `enable_grad()` block is recorded'. Counter-case:
    no_grad nested inside enable_grad inside no_grad."""
    assert_on_page(PAGE, "With a `torch.enable_grad()` block: inside it grad mode is on again, even within")
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            assert (w * 2).grad_fn is not None
            with torch.no_grad():
                assert (w * 2).grad_fn is None
        assert (w * 2).grad_fn is None


def test_enable_grad_does_not_undo_inference_mode():
    """Sentence: 'inside it, `enable_grad()` turns grad mode on ..., and still nothing is recorded'.
    Counter-case: set_grad_enabled(True) as well, and a leaf created outside inference mode."""
    assert_on_page(PAGE, "and still nothing is recorded")
    w = torch.randn(3, requires_grad=True)
    with torch.inference_mode():
        for mode in (torch.enable_grad(), torch.set_grad_enabled(True)):
            with mode:
                assert torch.is_grad_enabled()
                y = w * 2
                assert not y.requires_grad and y.grad_fn is None


def test_inference_mode_false_nested_inside_undoes_it():
    """Sentence: 'What undoes it is `torch.inference_mode(False)`, nested inside it around the code that
    must record' (the page said such code "has to run outside it" before). Counter-cases: the decorator
    form, and the recorded result backpropagating to a leaf."""
    assert_on_page(PAGE, "What undoes it is `torch.inference_mode(False)`, nested inside it around the code")
    w = torch.randn(3, requires_grad=True)

    @torch.inference_mode(False)
    def recorded(t):
        return t * 2

    with torch.inference_mode():
        with torch.inference_mode(False):
            block = w * 2
        decorated = recorded(w)
    for y in (block, decorated):
        assert y.grad_fn is not None and y.grad_fn.name() == "MulBackward0"
        w.grad = None
        y.sum().backward()
        assert torch.equal(w.grad, torch.full((3,), 2.0))
