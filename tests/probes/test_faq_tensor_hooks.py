"""Probes of the general sentences on faq/tensor-hooks.md. Counter-cases: a hook that runs later in the
same pass, create_graph=True, a tensor that does not require grad."""

from __future__ import annotations

import torch

from tests.conftest import ROOT
from tests.probes._sentence import assert_on_page, prose, raises

PAGE = "faq/tensor-hooks.md"


def test_the_sum_is_in_grad_before_backward_returns():
    """Sentence: 'the sum is stored as soon as the hook returns, before the rest of the backward pass runs
    (a hook that runs later in the same pass sees it)'. Counter-case to the old 'the sum is there only
    after `backward()` returns': a hook on an intermediate further from the loss sees w's new sum."""
    assert_on_page(PAGE, "a hook that runs later in the same pass sees it")
    w, u = torch.tensor(1.0, requires_grad=True), torch.tensor(1.0, requires_grad=True)
    w.grad = torch.tensor(2.0)
    far = u.exp()
    seen = []
    far.register_hook(lambda g: seen.append(w.grad.clone()))
    (w * far * 2).backward()
    assert torch.equal(seen[0], w.grad) and w.grad.item() != 2.0


def test_autograd_grad_frees_the_graph_unless_retained():
    """Sentences: '`autograd.grad` frees what the nodes it runs had saved, as `backward()` does, unless given
    `retain_graph=True` (or `create_graph=True`, which implies it)' and 'Pass `retain_graph=True` if a
    later pass runs those nodes again'. Before: '... frees the graph's saved tensors ...' and '... if you
    will call `backward()` on the same loss afterwards', which a later `backward()` needing only tensors
    saved off the path autograd.grad ran breaks (reader 5, L6: no error). Counter-cases: that, and a
    second pass through a node it ran (raises), with and without retain_graph / create_graph."""
    assert_on_page(PAGE, "`autograd.grad` frees what the nodes it runs had saved, as `backward()` does")
    assert_on_page(PAGE, "unless given `retain_graph=True` (or `create_graph=True`, which implies it)")
    assert_on_page(PAGE, "Pass `retain_graph=True` if a later pass runs those nodes again")
    for keep in ({"retain_graph": True}, {"create_graph": True}):
        x = torch.tensor(2.0, requires_grad=True)
        y = x.exp()
        torch.autograd.grad(y, x, **keep)
        torch.autograd.grad(y, x)
    x = torch.tensor(2.0, requires_grad=True)
    y = x.exp()
    torch.autograd.grad(y, x)
    assert "a second time" in raises(lambda: torch.autograd.grad(y, x))
    x = torch.ones(2, requires_grad=True)
    h = x.exp()
    loss = (h * h).sum()
    torch.autograd.grad(loss, [h])
    assert "a second time" in raises(loss.backward)
    x = torch.ones(2, requires_grad=True)
    h = x.exp()
    loss = (h + 1).sum()
    torch.autograd.grad(loss, [h])
    loss.backward()  # exp's saved result was off the path autograd.grad ran: not freed
    assert torch.allclose(x.grad, torch.ones(2).exp())


def test_a_tensor_that_does_not_require_grad_never_receives_a_gradient():
    """Sentence: 'A tensor that does not require grad never receives a gradient ..., so torch refuses a hook
    on it at once'. The sentence before it ('A hook runs during the backward pass, when the pass reaches
    its tensor, and receives the gradient (or `None` ...)') was cut (issue 42: fewer general sentences;
    rule 6, quoted on the page, says it and is probed on the rules page). Counter-cases: a frozen
    parameter used in the loss; an integer tensor."""
    assert_on_page(PAGE, "so torch refuses a hook on it at once")
    assert "A hook runs during the backward pass, when the pass reaches its tensor" not in prose(PAGE)
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    w = torch.ones(2, requires_grad=True)
    (frozen * w).sum().backward()
    assert frozen.grad is None
    for t in (frozen, torch.ones(2, dtype=torch.long)):
        assert "doesn't require gradient" in raises(lambda t=t: t.register_hook(lambda g: g))


class _NoGradientForY(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 2 + y

    @staticmethod
    def backward(ctx, grad):
        return grad * 2, None


def test_autograd_grad_raises_when_no_gradient_flows_to_a_listed_tensor():
    """Sentence: 'By default, `autograd.grad` raises when no gradient flows to one of the tensors you ask
    about'. Before, it went on ': it is on no path to the output, or only through an operation that gives
    it no gradient', a list a third case breaks (cut, issue 42): a view taken under `no_grad()`, used by
    the loss, which no gradient reaches. Counter-cases: that view, input data in the graph (raises), a
    tensor on the path of a Function returning None (raises), and allow_unused=True (None, no error)."""
    assert_on_page(
        PAGE, "By default, `autograd.grad` raises when no gradient flows to one of the tensors you ask about"
    )
    assert "or only through an operation that gives it no gradient" not in prose(PAGE)
    w = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        v = w[:2]
    assert "appears to not have been used in the graph" in raises(lambda: torch.autograd.grad((v * 2).sum(), [v]))
    assert torch.autograd.grad((v * 2).sum() + w.sum(), [v], allow_unused=True) == (None,)
    x = torch.randn(4, 3)
    layer = torch.nn.Linear(3, 1)
    assert "does not require grad" in raises(lambda: torch.autograd.grad(layer(x).sum(), [x]))
    a, w = torch.tensor(1.0, requires_grad=True), torch.tensor(3.0, requires_grad=True)
    h = w * 1
    out = _NoGradientForY.apply(a, h)
    assert "appears to not have been used in the graph" in raises(lambda: torch.autograd.grad(out, [h]))


def test_autograd_grad_returns_the_gradient_for_the_intermediate_listed():
    """Sentence: '`torch.autograd.grad(loss, [hidden])` returns the gradient of `loss` with respect to
    `hidden`, an intermediate activation here' (it describes the example beside it). Before: '... returns
    the gradients of `loss` with respect to any tensors in its graph that require grad, intermediates
    included', loose (issue 42, reader): a view of a parameter taken under `torch.no_grad()` requires
    grad and the loss uses it, yet autograd.grad raises 'appears to not have been used in the graph'
    (the view is a leaf with no way into the graph, rule 4). Counter-cases: that view, and the same view
    taken with grad mode on (a gradient); an intermediate as in the example."""
    assert "with respect to any\ntensors in its graph that require grad" not in (ROOT / "docs" / PAGE).read_text()
    assert "with respect to any tensors in its graph that require grad" not in prose(PAGE)
    assert_on_page(PAGE, "`torch.autograd.grad(loss, [hidden])` returns the gradient of `loss` with respect to")
    w = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        v = w[:2]
    assert v.requires_grad and v.is_leaf
    message = raises(lambda: torch.autograd.grad((v * 2).sum() + w.sum(), [v]))
    assert "appears to not have been used in the graph" in message
    v = w[:2]
    (g,) = torch.autograd.grad((v * 2).sum(), [v])
    assert torch.equal(g, torch.full((2,), 2.0))
    hidden = torch.relu(w * 3)
    (g,) = torch.autograd.grad(hidden.pow(2).sum(), [hidden])
    assert torch.equal(g, 2 * hidden.detach()) and w.grad is None


def test_record_the_original_gradient_after_the_last_in_place_change():
    """Sentence: 'and the tensor is not a view, record it from a hook registered first, after the last
    in-place write to its memory (a hook belongs to the `grad_fn` its tensor had when it was registered,
    which an in-place operation autograd records replaces: rule 6)'. Before: 'record it from a hook
    registered first, after the tensor's last in-place change', which a view breaks (reader 4, L9): after
    its base's write, a hook registered after an earlier one never runs, and a first registration before
    anything read its `grad_fn` crashes torch 2.13.0 (neither is run here); and a write through a view of
    the tensor is a write to its memory: a hook registered before it runs last. Before that: '(a hook
    registered before an in-place change belongs to the old
    value, and runs after the new value's hooks)', which two cases break (reader 3, F5): after a change
    under no_grad() (not recorded, the grad_fn stays) the earlier hook runs first, with the same
    gradient; after a change of a view the earlier hook never runs. Counter-cases: registered before the
    change, the recording hook sees the changed gradient; and those two."""
    assert_on_page(PAGE, "and the tensor is not a view, record it from a hook registered first, after the last")
    assert_on_page(PAGE, "in-place write to its memory (a hook belongs to the `grad_fn` its tensor")
    w = torch.ones(3, requires_grad=True)
    b, ran = w * 1, []
    b.register_hook(lambda g: ran.append(("before the write", g.clone())) or g * 10)
    b[:1].mul_(2)  # through a view: b's memory, b's new grad_fn (CopySlices)
    b.register_hook(lambda g: ran.append(("first after", g.clone())))
    (b * 3).sum().backward()
    assert [r[0] for r in ran] == ["first after", "before the write"] and torch.equal(ran[0][1], torch.full((3,), 3.0))
    assert_on_page(PAGE, "had when it was registered, which an in-place operation autograd records replaces")
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    for make, mode in ((lambda: a * 3, torch.no_grad), (lambda: (a * 3)[:1], torch.enable_grad)):
        b, order = make(), []
        node = b.grad_fn
        b.register_hook(lambda g, order=order: order.append("before"))
        with mode():
            b.mul_(2)
        assert (b.grad_fn is node) is (mode is torch.no_grad)
        b.register_hook(lambda g, order=order: order.append("after"))
        (b * 5).sum().backward()
        assert order == (["before", "after"] if mode is torch.no_grad else ["after"])
    for record_first in (True, False):
        a = torch.tensor(2.0, requires_grad=True)
        b = a * 3
        seen = []
        if record_first:
            b.mul_(2)
        b.register_hook(lambda g, seen=seen: seen.append(g.item()))
        if not record_first:
            b.mul_(2)
        b.register_hook(lambda g: g * 100)
        (b * 5).backward()
        assert seen == ([5.0] if record_first else [1000.0])


def test_across_tensors_hooks_fire_from_the_loss_back():
    """Sentence: 'Across tensors, hooks fire in the order the backward pass reaches them, from the loss back
    to the leaves'. Counter-case: a leaf reached by two paths (its hook runs once, after both)."""
    assert_on_page(PAGE, "Across tensors, hooks fire in the order the backward pass reaches them")
    order = []
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b.exp()
    d = c * a
    for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
        t.register_hook(lambda g, name=name: order.append(name))
    d.backward()
    assert order == ["d", "c", "b", "a"]


def test_post_accumulate_hooks_see_the_sum_on_leaves_only():
    """Sentence: '`register_post_accumulate_grad_hook(fn)` calls `fn(tensor)` after the gradient has been
    added into `.grad`, so the hook sees the accumulated value'. Counter-cases: a `.grad` set before (the
    hook sees the sum), a non-leaf (registration refused)."""
    assert_on_page(PAGE, "calls `fn(tensor)` after the gradient has been added into `.grad`")
    w = torch.tensor(1.0, requires_grad=True)
    w.grad = torch.tensor(10.0)
    seen = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.item()))
    (2 * w).backward()
    assert seen == [12.0]
    assert "cannot be registered on non-leaf" in raises(lambda: (w * 2).register_post_accumulate_grad_hook(print))
