"""Probes of the general sentences on docs/retain-grad.md. Counter-cases: an intermediate off the loss's
path, a leaf, `backward(inputs=...)`, `requires_grad_()` after the computation, a tensor computed only
from tensors that need no grad, a graph of additions alone."""

from __future__ import annotations

import pytest
import torch

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
    """Sentence: 'call `requires_grad_()` on the leaf it starts from. Then compute again: calling it
    afterwards changes nothing for what was already computed. A tensor computed only from tensors that need
    no grad is itself a leaf. `requires_grad_()` on it makes it require grad, but gives nothing before it a
    gradient.' Before that: 'before computing from it, and compute again' (one sentence of 48 words);
    and: 'Call `requires_grad_()` on the leaf the computation starts from, not on the intermediate' (REVIEW.md,
    15: loose). Counter-cases: the reviewer's."""
    assert_on_page(PAGE, "calling it afterwards changes nothing for what was already computed")
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


def test_a_graph_of_additions_out_of_place_can_be_walked_twice():
    """Sentence: 'By default a backward pass frees the tensors the graph saved for it [...], and a second
    pass that needs one of them fails' and 'A graph made only of additions out of place (`a + w`, say) saves
    no tensor, and can be walked twice without it'. Before: 'A graph that saved nothing (additions only,
    say) can be walked twice without it', which an addition in place through a view breaks (found while
    checking reader 8's L1): `b[:1].add_(1)` saves no tensor (the saved-tensor hook sees none, its node has
    no `_saved_*`), yet its `CopySlices` node is freed by the first pass and the second raises. So does
    `a * 0.01`, whose number is saved as a tensor the hook never sees (saved-tensors.md). Counter-cases:
    additions of two tensors, of a Python number, with `alpha=`, broadcast, of another dtype (nothing
    saved, two passes work); that in-place addition through a view; `exp` and a product of two tensors
    that require grad (saved)."""
    from torch.autograd.graph import saved_tensors_hooks

    assert_on_page(
        PAGE, "A graph made only of additions out of place (`a + w`, say) saves no tensor, and can be walked twice"
    )

    def saved_and_twice(make) -> tuple[list, bool]:
        a = torch.tensor([2.0, 3.0], requires_grad=True)
        w = torch.tensor([4.0, 5.0], requires_grad=True)
        seen = []
        with saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            out = make(a, w).sum()
        tensors = [
            getattr(node, name)
            for node in _nodes(out.grad_fn)
            for name in dir(node)
            if name.startswith("_saved_") and isinstance(getattr(node, name), torch.Tensor)
        ]
        out.backward()
        try:
            out.backward()
        except RuntimeError as error:
            assert "Trying to backward through the graph a second time" in str(error)
            return seen + tensors, False
        return seen + tensors, True

    for additions in (
        lambda a, w: a + w,
        lambda a, w: a + 1 + w,
        lambda a, w: torch.add(a, w, alpha=3),
        lambda a, w: a + torch.tensor(1.0, requires_grad=True),  # broadcast
        lambda a, w: a + torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
    ):
        assert saved_and_twice(additions) == ([], True)

    def in_place_through_a_view(a, w):
        b = a + w
        b[:1].add_(1)
        return b

    assert saved_and_twice(in_place_through_a_view) == ([], False)
    assert saved_and_twice(lambda a, w: a * 0.01)[1] is False
    for saving in (lambda a, w: a.exp(), lambda a, w: a * w):
        saved, twice = saved_and_twice(saving)
        assert saved and not twice


def _nodes(root) -> list:
    """The nodes of the graph from `root`."""
    seen, todo = [], [root]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        todo.extend(n for n, _ in node.next_functions)
    return seen


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
