"""Probes of the general sentences on faq/requires-grad.md (integer dtypes, non-leaf flags, enable_grad).

Each test quotes its sentence, checks the page still says it, and tries it on the counter-case an
expert would try first: other integer and boolean dtypes, complex, the attribute setter, a non-leaf
that does not change, inference mode.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from tests.probes._op_sweep import call, first_samples, tensors
from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/requires-grad.md"
FACTORY = "Only Tensors of floating point and complex dtype can require gradients"
METHOD = "only Tensors of floating point dtype can require gradients"
NOT_FLOATING = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool]


@pytest.mark.parametrize("dtype", NOT_FLOATING, ids=str)
def test_factories_and_parameter_refuse_integer_and_boolean_dtypes(dtype):
    """Sentences: 'That is the factory's wording (`torch.tensor`, `torch.zeros`, `torch.arange` with
    `requires_grad=True`, and `nn.Parameter` of an integer tensor). Boolean tensors are refused the same
    way.' Counter-cases: every integer width, bool, and requires_grad=False (accepted)."""
    assert_on_page(PAGE, "and `nn.Parameter` of an integer tensor). Boolean tensors are refused the same way.")
    assert raises(lambda: torch.zeros(2, dtype=dtype, requires_grad=True)) == FACTORY
    assert raises(lambda: torch.tensor([1, 0], dtype=dtype, requires_grad=True)) == FACTORY
    assert raises(lambda: nn.Parameter(torch.zeros(2, dtype=dtype))) == FACTORY
    if dtype is not torch.bool:
        assert raises(lambda: torch.arange(3, dtype=dtype, requires_grad=True)) == FACTORY
    assert not torch.zeros(2, dtype=dtype, requires_grad=False).requires_grad


@pytest.mark.parametrize("dtype", NOT_FLOATING, ids=str)
def test_requires_grad_method_and_attribute_wordings(dtype):
    """Sentences: '`requires_grad_()` accepts a complex tensor; setting the attribute
    (`t.requires_grad = True`) on an integer tensor gives a third wording, the factory's in lower case.
    `requires_grad_(False)` on an integer tensor raises nothing.'"""
    assert_on_page(PAGE, "gives a third wording, the factory's in lower case.")
    t = torch.zeros(2, dtype=dtype)
    assert raises(t.requires_grad_) == METHOD

    def set_attribute():
        t.requires_grad = True

    assert raises(set_attribute) == FACTORY[0].lower() + FACTORY[1:]
    t.requires_grad_(False)
    assert torch.zeros(2, dtype=torch.complex64).requires_grad_().requires_grad


def test_integer_results_do_not_require_grad():
    """Sentence: 'Results that are integers or booleans by nature (`argmax`, `topk(...).indices`,
    comparisons such as `x > 0`, `nonzero`, a cast with `.long()`) do not require grad, whatever their
    inputs did'. Counter-case: inputs that require grad, with grad mode on; and round(), which stays
    floating point and does require grad (not one of them)."""
    assert_on_page(PAGE, "do not require grad, whatever their inputs did")
    x = torch.randn(5, requires_grad=True)
    for result in (x.argmax(), x.topk(2).indices, x > 0, x.nonzero(), x.long(), x.max(0).indices):
        assert not result.requires_grad and result.grad_fn is None, result
    assert x.round().requires_grad


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


def test_requires_grad_false_on_a_non_leaf_raises_both_ways():
    """Sentences: 'Taking it out of the graph, `requires_grad_(False)`, is refused' and 'Setting
    `t.requires_grad = False` on a non-leaf raises the same error.' Counter-case: a leaf (allowed)."""
    assert_on_page(PAGE, "Setting `t.requires_grad = False` on a non-leaf raises the same error.")
    w = torch.randn(3, requires_grad=True)
    t = w * 2
    expected = "you can only change requires_grad flags of leaf variables."
    assert raises(lambda: t.requires_grad_(False)).startswith(expected)

    def set_attribute():
        t.requires_grad = False

    assert raises(set_attribute).startswith(expected)
    assert not w.requires_grad_(False).requires_grad


def test_enable_grad_inside_no_grad_records_only_its_block():
    """Sentences: 'inside it grad mode is on again, even within `torch.no_grad()`' (as a `with` block or
    a decorator, and set_grad_enabled(True)); 'Only what runs inside the `enable_grad()` block is
    recorded'. Counter-case: the decorator form, and nesting no_grad inside enable_grad inside no_grad."""
    assert_on_page(PAGE, "as a `with` block or a decorator: inside it grad mode is on again")
    w = torch.randn(3, requires_grad=True)

    @torch.enable_grad()
    def decorated():
        return w * 2

    with torch.no_grad():
        assert decorated().grad_fn is not None
        with torch.set_grad_enabled(True):
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


def test_no_operator_of_op_db_gives_an_integer_or_boolean_result_that_requires_grad():
    """Sentence: 'Results that are integers or booleans by nature ... do not require grad, whatever their
    inputs did', over torch's operator database: every entry, on its first float32 sample as a leaf that
    requires grad, with grad mode on. An operator whose integer or boolean output required grad (or
    a probe that looked at no such output) fails it."""
    assert_on_page(PAGE, "do not require grad, whatever their inputs did")
    exact = []
    for op, sample in first_samples(lambda t: t):
        try:
            outputs = tensors(call(op, sample))
        except Exception:  # a sample this torch refuses: nothing to check
            continue
        for out in outputs:
            if not (out.is_floating_point() or out.is_complex()):
                exact.append(op.name)
                assert not out.requires_grad and out.grad_fn is None, op.name
    assert len(exact) > 50, exact
