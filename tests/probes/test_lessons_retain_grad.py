"""Probes of the general sentences on docs/retain-grad.md. Counter-cases: an intermediate off the loss's
path, a leaf, `backward(inputs=...)`, `requires_grad_()` after the computation, a tensor computed only
from tensors that need no grad, a pass limited by `inputs=`."""

from __future__ import annotations

import pytest
import torch

from tests.conftest import ROOT
from tests.probes._sentence import assert_on_page

PAGE = "retain-grad.md"


def test_retain_grad_keeps_the_gradient_that_reaches_the_tensor():
    """Sentence: 'Call `b.retain_grad()` on an intermediate `b` before `backward()`, and the gradient that
    reaches `b` during the backward pass stays in `b.grad`'. Counter-cases: `b` off the loss's path (no
    gradient reaches it: `b.grad` stays None), `b` reached twice in one pass (the sum stays)."""
    assert_on_page(PAGE, "the gradient that reaches `b` during the backward pass stays in `b.grad`")
    a = torch.tensor(2.0, requires_grad=True)
    b, off_path = a * 3, a * 5
    b.retain_grad()
    off_path.retain_grad()
    (b * 2 + b * 5).backward()
    assert torch.equal(b.grad, torch.tensor(7.0)) and off_path.grad is None


def test_retains_grad_tells_whether_a_non_leaf_keeps_its_gradient():
    """Sentence: 'For a non-leaf `b`, `b.retains_grad` tells whether it will keep a gradient that reaches
    it'. Before: '`b.retains_grad` tells whether `retain_grad()` was called on `b`', which a leaf breaks
    (called, and `False`) and `backward(inputs=[c])` too (not called on `c`, and `True` afterwards). And
    'whether it will keep its gradient' (a first rewording) broke on `b` in that same pass: `True`, and
    no gradient kept, since none reached it. Counter-cases: the same."""
    assert_on_page(PAGE, "For a non-leaf `b`, `b.retains_grad` tells whether it will keep a gradient that reaches it")
    a = torch.tensor(2.0, requires_grad=True)
    a.retain_grad()
    assert not a.retains_grad
    b, c = a * 3, a * 4
    assert not b.retains_grad
    b.retain_grad()
    (b * c).backward(inputs=[c], retain_graph=True)
    assert b.retains_grad and b.grad is None  # the pass to c does not reach b
    assert c.retains_grad and c.grad is not None
    (b * c).backward()
    assert b.grad is not None


def test_retain_grad_on_a_leaf_that_requires_grad_changes_nothing():
    """Sentence: 'On a leaf that requires grad, `retain_grad()` is a no-op. Its `retains_grad` stays
    `False`.' Counter-case: an `nn.Parameter`, and a second pass."""
    assert_on_page(PAGE, "On a leaf that requires grad, `retain_grad()` is a no-op. Its `retains_grad` stays `False`.")
    p = torch.nn.Parameter(torch.tensor(2.0))
    p.retain_grad()
    assert not p.retains_grad and p.is_leaf
    (p * 3).backward()
    (p * 3).backward()
    assert torch.equal(p.grad, torch.tensor(6.0))


def test_retain_grad_raises_on_a_tensor_that_does_not_require_grad():
    """Sentence: 'A tensor with `requires_grad=False` gets no gradient from autograd, so there is none to
    keep, and torch raises'. Counter-cases: a tensor computed under `no_grad()` from one that requires
    grad, and an integer result."""
    assert_on_page(PAGE, "A tensor with `requires_grad=False` gets no gradient from autograd")
    w = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        under_no_grad = w * 2
    for t in (torch.ones(3), under_no_grad, w.argmax()):
        with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
            t.retain_grad()


def test_requires_grad_on_the_starting_leaf_counts_only_before_computing():
    """Sentence: 'To get gradients for the whole computation, call `requires_grad_()` on the leaf it starts
    from, then compute again.' Before (issue 42's reader: no example on the page backs them): '...starts
    from. Then compute again: calling it afterwards changes nothing for what was already computed. A
    tensor computed only from tensors that need no grad is itself a leaf. `requires_grad_()` on it makes
    it require grad, but gives nothing before it a gradient.', cut to the instruction. Before that: 'before
    computing from it, and compute again' (one sentence of 48 words); and: 'Call `requires_grad_()` on
    the leaf the computation starts from, not on the intermediate' (REVIEW.md, 15: loose). Counter-cases:
    `requires_grad_()` on the leaf after computing (nothing computed changes), on the computed tensor
    (a leaf: nothing before it gets a gradient); computing again gives the leaf its gradient."""
    assert_on_page(PAGE, "call `requires_grad_()` on the leaf it starts from, then compute again.")
    x = torch.ones(3)
    y = x * 2
    x.requires_grad_()
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="can't retain_grad"):
        y.retain_grad()
    y.requires_grad_()
    (y * y).sum().backward()
    assert y.is_leaf and torch.equal(y.grad, torch.full((3,), 4.0)) and x.grad is None
    y_again = x * 2
    y_again.retain_grad()
    (y_again * y_again).sum().backward()
    assert torch.equal(x.grad, torch.full((3,), 8.0))


def test_a_second_pass_adds_into_a_retained_intermediates_grad_as_into_a_leafs():
    """Sentence: 'A second backward pass *adds* into `.grad`, into a retained intermediate's as into a
    leaf's'. Counter-case: a `.grad` set by hand before the pass (added to, not replaced)."""
    assert_on_page(PAGE, "A second backward pass *adds* into `.grad`, into a retained intermediate's as into a leaf's")
    a = torch.tensor(2.0, requires_grad=True)
    a.grad = torch.tensor(100.0)
    b = a * 3
    b.retain_grad()
    c = b * b
    c.backward(retain_graph=True)
    c.backward()
    assert torch.equal(b.grad, torch.tensor(24.0)) and torch.equal(a.grad, torch.tensor(172.0))


def test_the_first_pass_freed_what_exp_saved():
    """Sentence: 'Below, without it, the second call fails: `exp` saved its result, and the first pass freed
    it'. Before: 'By default a backward pass frees the tensors the graph saved for it', loose (issue 42's
    reader, L3): a pass limited by `inputs=` frees only what it ran, so after `c.backward(inputs=[w])` on
    `c = a.exp() + w` a full `c.backward()` still works. And 'A graph made only of additions out of place
    (`a + w`, say) saves no tensor, and can be walked twice without it': cut, with its probe (no example on
    the page; saved-tensors.md shows what `a + w` saves). Checks: the example's `exp` node holds its
    result, the first pass frees it (reading it raises), the second pass raises; with `retain_graph=True`
    on the first, both run. Counter-case: that pass limited by `inputs=`."""
    assert_on_page(PAGE, "Below, without it, the second call fails: `exp` saved its result, and the first pass freed")
    snippet = (ROOT / "snippets/retain_grad/retain_graph_error.py").read_text(encoding="utf-8")
    assert "b = a.exp()" in snippet and snippet.count("c.backward()") == 2
    a = torch.tensor(2.0, requires_grad=True)
    b = a.exp()
    c = b + 1
    assert b.grad_fn._saved_result.equal(b)
    c.backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = b.grad_fn._saved_result
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        c.backward()
    a = torch.tensor(2.0, requires_grad=True)
    c = a.exp() + 1
    c.backward(retain_graph=True)
    c.backward()
    assert torch.allclose(a.grad, 2 * torch.tensor(2.0).exp())
    a = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(1.0, requires_grad=True)
    c = a.exp() + w
    c.backward(inputs=[w])
    c.backward()
    assert torch.allclose(a.grad, torch.tensor(2.0).exp()) and torch.equal(w.grad, torch.tensor(2.0))


def test_retain_graph_on_every_pass_but_the_last():
    """Sentence: 'With `retain_graph=True` on every pass but the last, it works, and the gradients add up'.
    Counter-case: three passes."""
    assert_on_page(PAGE, "With `retain_graph=True` on every pass but the last, it works, and the gradients add up")
    a = torch.tensor(2.0, requires_grad=True)
    c = a.exp() + 1
    c.backward(retain_graph=True)
    c.backward(retain_graph=True)
    c.backward()
    assert torch.allclose(a.grad, 3 * torch.tensor(2.0).exp())
