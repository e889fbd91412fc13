"""Probes of the general sentences on docs/register-hook.md. Counter-cases: an unused output of an
operation with two outputs, a tensor off the loss's path, a tensor changed in place between two
registrations, a second pass, a hook that returns a tensor, a leaf's `.grad` seen from its hooks."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tests.probes._sentence import assert_on_page

PAGE = "register-hook.md"


def test_a_hook_runs_once_per_pass_that_reaches_its_tensor_and_may_get_none():
    """Sentence: 'On a tensor that is not a view, `tensor.register_hook(fn)` calls `fn(grad)` once in each
    backward pass that reaches the tensor's node: its `grad_fn` when the hook was registered, or for a leaf
    the node that accumulates its `.grad` in that pass.' Before: '... the tensor's node as it was when the
    hook was registered: its `grad_fn` then, or for a leaf the node that accumulates its `.grad`', which
    reads as one node for a leaf (reader 9, L3): each graph has its own, and the leaf's hook runs in every
    pass (the two passes below each build a graph). Before that: the same without 'On a tensor that is not
    a view', which a view breaks (reader 4, F2): with one hook on the view, its base written in place, a second hook
    registered gives `view.grad_fn` AsStridedBackward0, the pass runs that node, and the second hook never
    runs (it joins the first one's dict on the old node). That case registers on such a view before
    anything read its `grad_fn` (torch 2.13.0 crashes on the first such registration), so it is not run
    here; the case below, which reads it first, is. `grad` is the gradient with respect to the tensor, or
    `None` when none was computed for it (an unused output of an operation with several outputs, such as
    `chunk()`)'. Before: '...when the gradient with respect to that tensor has been computed', which the
    unused output breaks: its hook runs, with None (REVIEW.md, 16). Counter-cases: that output, a tensor
    off the path (no call), two passes (two calls), a tensor used twice in one pass (one call, the sum).
    Before: '... during the backward pass, when autograd reaches that tensor, once in each pass that
    does', which a view whose base is then written in place breaks (reader 3, L4): the pass runs the
    view's new grad_fn, 7 flows through it to `x`, and the hook, on the view's old node, never runs;
    `retain_grad()` moves to the new node. A hook registered on that view after the write, before
    anything read its `grad_fn`, crashes torch 2.13.0 (SIGSEGV), so it is not tried here."""
    assert_on_page(PAGE, "On a tensor that is not a [view](rules.md#rule-3), `tensor.register_hook(fn)` calls")
    assert_on_page(PAGE, "calls `fn(grad)` once in each backward pass that reaches the tensor's node")
    assert_on_page(PAGE, "pass that reaches the tensor's node: its `grad_fn` when the hook was registered, or for a")
    for make in (lambda a: a, lambda a: a * 1, lambda a: (a * 1).sin()):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        t, ran = make(a), []
        t.register_hook(lambda g, ran=ran: ran.append("before"))
        if not t.is_leaf:
            t.mul_(2)  # a recorded write: a new node, and the earlier hook's one still runs, reached through it
        t.register_hook(lambda g, ran=ran: ran.append("after"))
        (t * 3).sum().backward(retain_graph=True)
        (t * 3).sum().backward()
        assert ran == (["before", "after"] * 2 if t.is_leaf else ["after", "before"] * 2), ran
    assert_on_page(PAGE, "or for a leaf the node that accumulates its `.grad` in that pass.")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    base = x * 1
    view = base[:1]
    old_node, fired = view.grad_fn, []
    view.register_hook(fired.append)
    view.retain_grad()
    base.mul_(2)
    assert view.grad_fn is not old_node and view.grad_fn.name() == "AsStridedBackward0"
    (view * 7).sum().backward()
    assert fired == [] and torch.equal(x.grad, torch.tensor([14.0, 0.0]))
    assert torch.equal(view.grad, torch.tensor([7.0]))
    assert_on_page(PAGE, "`grad` is the gradient with respect to the tensor, or `None` when none was computed for it")
    w = torch.arange(4.0, requires_grad=True)
    used, unused = (w * 1).chunk(2)
    off_path = w * 5
    got = {"unused": [], "off": [], "twice": []}
    unused.register_hook(lambda g: got["unused"].append(g))
    off_path.register_hook(lambda g: got["off"].append(g))
    twice = w * 2
    twice.register_hook(lambda g: got["twice"].append(g))
    loss = used.sum() + (twice * 3).sum() + (twice * 4).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert got["unused"] == [None, None] and got["off"] == []
    assert len(got["twice"]) == 2 and all(torch.equal(g, torch.full((4,), 7.0)) for g in got["twice"])


def test_register_hook_raises_on_a_tensor_that_does_not_require_grad():
    """Sentence: 'On a tensor that does not require grad, `register_hook` raises'. Before: 'You can register
    a hook on a tensor that requires grad, leaf or intermediate. On one that does not, it raises', whose
    first half torch 2.13.0 breaks (reader 4, F3): on a view whose base was written in place, before
    anything read its `grad_fn`, the registration crashes the process (SIGSEGV; not run here). Before
    that: '(never, for a slice
    of a leaf taken under `torch.no_grad()`', which issue 29 broke: after `v.requires_grad_()` on that
    slice, a gradient reaches it, its hooks run and it gets a `.grad`. Counter-cases: that slice before and
    after `requires_grad_()`, a view, a frozen parameter, an integer result."""
    assert_on_page(PAGE, "On a tensor that does not require grad, `register_hook` raises")
    for call_requires_grad in (False, True):
        a = torch.ones(4, requires_grad=True)
        with torch.no_grad():
            view = a[:2]
        if call_requires_grad:
            view.requires_grad_()
        fired = []
        view.register_hook(fired.append)
        (view * 2).sum().backward()
        assert view.requires_grad and (view.grad is not None) == call_requires_grad
        assert len(fired) == (1 if call_requires_grad else 0)
    w = torch.randn(4, requires_grad=True)
    for t in (w, w * 2, w.view(2, 2), nn.Parameter(torch.ones(2))):
        t.register_hook(lambda g: None)
    with torch.no_grad():
        made_under_no_grad = w * 2
    with torch.inference_mode():
        inference = torch.ones(2)
    frozen = nn.Parameter(torch.ones(2), requires_grad=False)
    for t in (frozen, w.argmax(), torch.ones(2), made_under_no_grad, w.detach(), inference, frozen[:1]):
        with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
            t.register_hook(lambda g: None)


def test_a_returned_tensor_replaces_the_gradient_for_everything_upstream():
    """Sentence: 'If the hook returns a tensor, that tensor is used instead of the gradient from then on,
    for everything upstream'. Counter-cases: a later hook on the same tensor, its retained `.grad`, and a
    leaf two operations up."""
    assert_on_page(PAGE, "that tensor is used instead of the gradient from then on, for everything upstream")
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b * 2
    seen = []
    b.register_hook(lambda g: torch.tensor(1.0))
    b.register_hook(lambda g: seen.append(g))
    b.retain_grad()
    (c * c).backward()
    assert seen == [torch.tensor(1.0)] and torch.equal(b.grad, torch.tensor(1.0))
    assert torch.equal(a.grad, torch.tensor(3.0))


def test_returning_none_leaves_the_gradient_unchanged():
    """Sentence: 'Return `None` (as a plain `print` does) to leave the gradient unchanged'."""
    assert_on_page(PAGE, "Return `None` (as a plain `print` does) to leave the gradient unchanged")
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    b.register_hook(lambda g: None)
    (b * b).backward()
    assert torch.equal(a.grad, torch.tensor(36.0))


def test_a_hook_not_removed_runs_in_every_later_pass_that_runs_its_node():
    """Sentence: 'A hook on a tensor that is not a view, left in place, runs again in every later pass that
    runs its node'. Before: 'A hook you do not remove runs again in every later pass that reaches its
    tensor', which a hook on a view whose base is then written in place breaks (reader 5, L3: it never
    runs). Before that: '...in every later pass', which a later pass that does not reach the tensor breaks.
    Counter-cases: a leaf, with a pass between that does not run its node; an intermediate written in
    place after its hook was registered (the hook stays with its old node, which later passes run)."""
    assert_on_page(PAGE, "A hook on a tensor that is not a view, left in place, runs again in every later pass")
    assert_on_page(PAGE, "that runs its node ([rule 6](rules.md#rule-6))")
    a = torch.tensor(2.0, requires_grad=True)
    other = torch.tensor(1.0, requires_grad=True)
    calls = []
    a.register_hook(lambda g: calls.append(g))
    (a * 3).backward()
    (other * 3).backward()
    (a * 3).backward()
    assert len(calls) == 2
    x = torch.ones(2, requires_grad=True)
    b = x * 2
    old = b.grad_fn
    b.register_hook(lambda g: calls.append(g))
    b.mul_(3)
    assert b.grad_fn is not old
    loss = b.sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert len(calls) == 4 and torch.equal(calls[-1], torch.full((2,), 3.0))


def test_hook_order_unless_the_tensor_changed_in_place_in_between():
    """Sentences: 'Here the hooks fire as the backward pass reaches each tensor, from `c` back to the leaf
    `a`, and the two on `b` in the order they were registered. A change in place between two registrations
    can change that order'. Before: 'Hooks fire as the backward pass reaches each tensor, from the output
    back to the leaves. Several hooks on one tensor fire in the order they were registered, unless the
    tensor was changed in place between two registrations', loose (reader 13): hooks on a view (a 3-D
    Linear's output) written in place after they were registered never fire. Before that: without the
    'unless' (REVIEW.md, 17). Counter-cases: the example's chain, and the in-place case."""
    assert_on_page(PAGE, "Here the hooks fire as the backward pass reaches each tensor, from `c` back to the leaf")
    assert_on_page(PAGE, "A change in place between two registrations can change\nthat order")
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b + 1
    order = []
    a.register_hook(lambda g: order.append("a"))
    b.register_hook(lambda g: order.append("b1"))
    b.register_hook(lambda g: order.append("b2"))
    c.register_hook(lambda g: order.append("c"))
    c.backward()
    assert order == ["c", "b1", "b2", "a"]
    order.clear()
    d = torch.tensor(2.0, requires_grad=True) * 3
    d.register_hook(lambda g: order.append("before"))
    d.mul_(2)
    d.register_hook(lambda g: order.append("after"))
    (d * 5).backward()
    assert order == ["after", "before"]


def test_hooks_do_not_all_move_with_an_in_place_change():
    """Sentence: 'For a tensor that is not a view, an in-place operation that autograd records gives the
    tensor a new `grad_fn`, and its hooks do not all move with it'. Before: without 'For a tensor that is not
    a view', loose (reader 8, L3): the section's hook registered before the change 'runs later', which on a
    view it does not (test below), and faq/module-hooks.md cited the section for a module's output, a view
    whenever `nn.Linear` is given a 3-D input. Before that: 'An in-place operation gives ...', which one
    under no_grad() breaks (reader 3, L5): the grad_fn stays, and every hook gets the same gradient, in the
    order registered. Counter-case: that one."""
    assert_on_page(
        PAGE,
        "For a tensor that is not a view, an in-place operation that autograd records gives the tensor a new"
        " `grad_fn`, and its hooks do not all move with it",
    )
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    old, got = b.grad_fn, []
    b.register_hook(lambda g: got.append(("before", g)))
    with torch.no_grad():
        b.mul_(2)
    b.register_hook(lambda g: got.append(("after", g)))
    assert b.grad_fn is old
    (b * 5).backward()
    assert got == [("before", torch.tensor(5.0)), ("after", torch.tensor(5.0))]
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    old = b.grad_fn
    got = []
    b.register_hook(lambda g: got.append(("before", g)))
    b.mul_(2)
    assert b.grad_fn is not old
    (b * 5).backward()
    assert got == [("before", torch.tensor(10.0))]


def test_a_leafs_tensor_hook_runs_before_the_gradient_is_added():
    """Sentence: 'A hook registered with `register_hook` on a leaf runs *before* the gradient is added into
    `.grad`' and 'use `register_post_accumulate_grad_hook`: it is called with the tensor, after `.grad` has
    been updated'. Counter-case: a second pass, where `.grad` already holds the first one's."""
    assert_on_page(
        PAGE, "A hook registered with `register_hook` on a leaf runs *before* the gradient is added into `.grad`"
    )
    a = torch.tensor(2.0, requires_grad=True)
    seen = []
    a.register_hook(lambda g: seen.append(("hook", None if a.grad is None else a.grad.clone())))
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("post", t.grad.clone())))
    (a * 3).backward()
    (a * 3).backward()
    assert seen == [
        ("hook", None),
        ("post", torch.tensor(3.0)),
        ("hook", torch.tensor(3.0)),
        ("post", torch.tensor(6.0)),
    ]


def test_the_bias_is_the_closer_of_the_two_to_the_loss():
    """Sentence: 'The bias came first: it is the closer of the two to the loss in the backward graph'.
    Counter-case: count the nodes from the loss to each parameter's AccumulateGrad."""
    assert_on_page(PAGE, "it is the closer of the two to the loss in the backward graph")
    model = nn.Linear(3, 1)
    loss = model(torch.randn(8, 3)).pow(2).mean()

    def depth(node, target, d=0):
        if getattr(node, "variable", None) is target:
            return d
        found = [depth(n, target, d + 1) for n, _ in node.next_functions if n is not None]
        found = [f for f in found if f is not None]
        return min(found) if found else None

    assert depth(loss.grad_fn, model.bias) < depth(loss.grad_fn, model.weight)


def test_autograd_grad_returns_an_intermediates_gradient_and_here_writes_no_grad():
    """Sentence: '`torch.autograd.grad(outputs, inputs)` returns the gradients of `outputs` with respect to
    `inputs`, Intermediates are included [...] Here it writes no `.grad`'. Before: '...and writes no leaf's
    `.grad`. One exception: ...' (a restatement of rule 5, which the page now shows from rules.py).
    Counter-case: a retained tensor between the output and the input, whose `.grad` it does fill."""
    assert_on_page(PAGE, "Intermediates are included")
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b + 1
    (dc_db,) = torch.autograd.grad(c, b, retain_graph=True)
    assert torch.equal(dc_db, torch.tensor(1.0)) and a.grad is None
    b.retain_grad()
    torch.autograd.grad(c, a)
    assert a.grad is None and torch.equal(b.grad, torch.tensor(1.0))


def test_retain_grad_stores_the_new_values_gradient_wherever_it_was_called():
    """Sentence: 'The hook registered after it, and `retain_grad()` (called before the change or after
    it), see the gradient with respect to the new value' (REVIEW.md, 28)."""
    assert_on_page(
        PAGE, "`retain_grad()` (called before the change or after it), see the gradient with respect to the new value"
    )
    for retain_first in (True, False):
        b = torch.tensor(2.0, requires_grad=True) * 3
        if retain_first:
            b.retain_grad()
        b.mul_(2)
        if not retain_first:
            b.retain_grad()
        (b * 5).backward()
        assert torch.equal(b.grad, torch.tensor(5.0))


def test_a_node_hook_gets_what_the_node_sends_on_and_what_it_got():
    """Sentence: 'It has hooks too (`register_hook`), called with what the node sends on to its inputs and
    what it got.' Before: '... called with what the node sends on to its inputs', which the hook's second
    argument breaks: torch passes the gradients that reached the node too. Counter-case: a node with an
    input that needs no gradient (None in the first tuple)."""
    assert_on_page(PAGE, "called with what the node sends on to its inputs and what it got")
    x = torch.ones(2, requires_grad=True)
    b = x * torch.full((2,), 3.0)
    seen = []
    b.grad_fn.register_hook(lambda sent, got: seen.append((sent, got)))
    (b * 2).sum().backward()
    (sent, got), = seen
    assert torch.equal(sent[0], torch.full((2,), 6.0)) and sent[1] is None
    assert torch.equal(got[0], torch.full((2,), 2.0))
