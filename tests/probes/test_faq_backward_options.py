"""Probes of the general sentences on faq/backward-options.md (backward(inputs=...), create_graph=True).

Each test quotes its sentence, checks the page still says it, and tries it on the counter-case an
expert would try first: a non-leaf listed, a `.grad` set before, a retain_grad() tensor beyond the
inputs.
"""

from __future__ import annotations

import torch
import torch.nn as nn

from tests.probes._lesson_text import printed_by
from tests.probes._sentence import assert_on_page, prose, raises, rule_says

PAGE = "faq/backward-options.md"


def test_inputs_fills_what_rule_4_says_a_no_grad_view_listed_gets_none():
    """Sentence: 'Pass them as `inputs`, as in `c.backward(inputs=[b])` below; which `.grad` that fills is
    [rule 4]'. Before: '`loss.backward(inputs=[...])` accumulates a gradient into the `.grad` of the tensors
    listed, and of no leaf that is not listed', loose (issue 42, reader): a view of a parameter taken under
    `torch.no_grad()`, listed and used by the loss, gets no `.grad` (None, no error), and neither does its
    base; rule 4's words say so ('A view taken with grad mode off ... gets none'). Counter-cases: that
    view, and one taken before its base required grad; a `.grad` set before (added to), a leaf not listed
    (left alone), a leaf beyond a listed non-leaf."""
    assert "accumulates a gradient into the `.grad` of the tensors listed" not in prose(PAGE)
    assert_on_page(PAGE, "Pass them as `inputs`, as in `c.backward(inputs=[b])` below; which `.grad` that fills is")
    assert_on_page(PAGE, "[rule 4](../rules.md#rule-4)")
    rule_says("A view taken with grad mode off or before its base required grad reads `requires_grad=True` yet")
    w = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        v = w[:2]
    (v * 2).sum().backward(inputs=[v])
    assert v.requires_grad and v.grad is None and w.grad is None
    base = torch.zeros(4)
    early = base[:2]
    base.requires_grad_()
    (early * 2).sum().backward(inputs=[early])
    assert early.requires_grad and early.grad is None and base.grad is None
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    d = a * 2
    other = torch.tensor(5.0, requires_grad=True)
    w = torch.tensor(1.0, requires_grad=True)
    w.grad = torch.tensor(10.0)
    (d.sum() * w * other).backward(inputs=[d, w])
    assert torch.equal(w.grad, torch.tensor(10.0 + 6 * 5))
    assert d.grad is not None
    assert a.grad is None and other.grad is None


def test_a_retain_grad_tensor_not_listed_gets_a_grad_between_or_beside_a_listed_one():
    """Sentences: 'A non-leaf that is not listed but called `retain_grad()` can get a `.grad` too: one
    between the loss and a listed tensor, and one that shares its `grad_fn` with a listed tensor. With
    `q, k, v = lin(x).chunk(3, -1)` ... listing `q` ... `k.grad` is filled.' The words before ('of the other
    tensors, only one that called `retain_grad()` and lies between the loss and a listed tensor gets one
    too') said `k.grad` stays None: this fails on them (issue 42). Counter-case: a retain_grad() tensor
    beyond the listed one gets none."""
    assert_on_page(PAGE, "one that shares its `grad_fn` with a listed tensor")
    assert "lies between the loss and a listed tensor gets one too" not in prose(PAGE)
    torch.manual_seed(0)
    lin = nn.Linear(4, 6)
    q, k, v = lin(torch.randn(2, 4)).chunk(3, -1)
    k.retain_grad()
    (q * k * v).sum().backward(inputs=[q])
    assert k.grad is not None, "k, beside the listed q, got no .grad"
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    d = b * 3
    e = d * 1
    e.retain_grad()
    e.sum().backward(inputs=[d])
    assert torch.equal(e.grad, torch.tensor([1.0, 1.0])), "the retain_grad() tensor between loss and d"
    assert b.grad is None, "a retain_grad() tensor beyond the listed one"


def test_listing_a_non_leaf_makes_it_retain_its_gradient_for_later_passes():
    """Sentences: 'Listing a non-leaf calls `retain_grad()` on it for you ..., and that stays: a later
    `backward()` without `inputs` fills `b.grad` again'. Counter-cases: a listed leaf (retains_grad stays
    False: it needs no retaining), and autograd.grad (does not make it retain)."""
    assert_on_page(PAGE, "Listing a non-leaf calls `retain_grad()` on it for you")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    assert not b.retains_grad
    torch.autograd.grad((b * b).sum(), b)
    assert not b.retains_grad
    (b * b).sum().backward(inputs=[b], retain_graph=True)
    assert b.retains_grad
    (b * b).sum().backward()
    assert torch.equal(b.grad, 2 * (2 * b.detach()))
    leaf = torch.ones(2, requires_grad=True)
    (leaf * 2).sum().backward(inputs=[leaf])
    assert not leaf.retains_grad and leaf.grad is not None


def test_listing_some_parameters_leaves_the_others_as_they_were():
    """Sentence: 'listing some parameters leaves the others' `.grad` as it was'. Counter-case: the
    others had a `.grad` already (kept, not cleared or added to)."""
    assert_on_page(PAGE, "listing some parameters leaves the others' `.grad` as it was")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
    model(torch.randn(5, 3)).sum().backward()
    before = model[0].weight.grad.clone()
    model(torch.randn(5, 3)).sum().backward(inputs=list(model[1].parameters()))
    assert torch.equal(model[0].weight.grad, before)


def test_the_pass_with_inputs_frees_the_graph_up_to_the_listed_tensor():
    """Sentence: 'The backward pass still runs the graph between the loss and the tensors listed (and frees
    it): hence `retain_graph=True` in the example before the second pass.' Catches: a `backward(inputs=...)`
    that no longer runs or frees that part (the second pass would then work without retain_graph).
    Counter-case: with retain_graph=True, as in the example, the second pass runs."""
    assert_on_page(PAGE, "The backward pass still runs the graph between the loss and the tensors listed")
    assert_on_page(PAGE, "hence `retain_graph=True` in the example before the second pass")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = (b * b).sum()
    c.backward(inputs=[b])
    assert "a second time" in raises(lambda: c.backward())
    b = a * 2
    c = (b * b).sum()
    c.backward(inputs=[b], retain_graph=True)
    c.backward()
    assert torch.equal(a.grad, torch.tensor([8.0, 16.0]))


def test_create_graph_gives_a_grad_fn():
    """Sentence: 'It records the backward pass itself, so that the gradient it returns is a tensor in a
    graph, with a `grad_fn`'. Catches: create_graph=True no longer recording the backward pass.
    Counter-case: without create_graph, no grad_fn."""
    assert_on_page(PAGE, "It records the backward pass itself, so that the gradient it returns is a tensor in a")
    x = torch.tensor(3.0, requires_grad=True)
    (g,) = torch.autograd.grad(x**3, x, create_graph=True)
    assert g.grad_fn is not None
    (g,) = torch.autograd.grad(x**3, x)
    assert g.grad_fn is None


def test_autograd_grad_stores_nothing_in_grad():
    """Sentence: '`torch.autograd.grad(..., create_graph=True)` ... returns the gradient and stores it in no
    leaf's `.grad`'. Before: '... stores nothing in `.grad`', which a `retain_grad()` tensor on the path
    breaks (its `.grad` is filled, rule 5), as a non-leaf once listed in `backward(inputs=...)` is.
    Counter-case: a leaf whose `.grad` was set before (left as it was)."""
    assert_on_page(PAGE, "is the usual way: it returns the gradient and stores it in no leaf's `.grad`")
    x = torch.tensor(3.0, requires_grad=True)
    x.grad = torch.tensor(1.0)
    torch.autograd.grad(x**3, x, create_graph=True)
    assert torch.equal(x.grad, torch.tensor(1.0))
    b = x * 1
    (b**3).backward(inputs=[b], retain_graph=True)
    b.grad = None
    torch.autograd.grad(b**3, x, create_graph=True)
    assert b.grad is not None and torch.equal(x.grad, torch.tensor(1.0))


def test_the_fix_autograd_grad_then_a_plain_backward_gives_no_warning_and_no_cycle():
    """Sentences: '**The fix** is the warning's advice: take that gradient with `torch.autograd.grad(...,
    create_graph=True)`, which returns it instead of storing it in a leaf's `.grad` ..., and call a plain
    `backward()` on what you compute from it' and 'With torch set to warn at every call, `0 warnings`, and
    the gradient `backward()` stored has no graph'. Before, the fix was not executed (issue 42). In a
    fresh interpreter with `torch.set_warn_always(True)`: the fix prints no warning, while the same
    penalty through `backward(create_graph=True)` warns at each call (so the 0 means something);
    autograd.grad leaves the leaf's `.grad` None; the plain backward stores gradients with no graph."""
    assert_on_page(PAGE, "which returns it instead of storing it in a leaf's `.grad`")
    assert_on_page(PAGE, "the\ngradient `backward()` stored has no graph")
    setup = (
        "import warnings\nimport torch\nimport torch.nn as nn\n"
        "torch.set_warn_always(True)\nwarnings.simplefilter('always')\ntorch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))\n"
        "x = torch.randn(8, 3, requires_grad=True)\n"
    )
    fixed = (
        "(dx,) = torch.autograd.grad(model(x).sum(), x, create_graph=True)\n"
        "print('x.grad after autograd.grad:', x.grad)\n"
        "dx.pow(2).sum().backward()\n"
        "print('graph:', model[0].weight.grad.grad_fn is not None)\n"
    )
    warning = "Using backward() with create_graph=True will create a reference cycle"
    out = printed_by(setup + fixed + fixed)
    assert warning not in out and "x.grad after autograd.grad: None" in out and "graph: False" in out
    cycle = "model(x).sum().backward(create_graph=True)\nfor p in model.parameters(): p.grad = None\n"
    assert printed_by(setup + cycle * 2).count(warning) == 2


def _warnings_printed(code: str) -> int:
    """In a fresh interpreter, with Python's filters set to "always": Python shows every warning torch
    passes on, so a count of one is torch's own once per process."""
    always = "import warnings\n\nimport torch\n\nwarnings.simplefilter('always')\n"
    return printed_by(always + code).count("Using backward() with create_graph=True will create a reference cycle")


def test_the_reference_cycle_warning_is_printed_once_per_process():
    """Sentences: 'torch warns about it at a `backward(create_graph=True)`, once per process unless
    `torch.set_warn_always(True)` is set' (with Python's warnings set to "always"). Counter-cases: two
    calls in one process (one warning), with set_warn_always (one per call), autograd.grad (no warning). Rule 8
    says the same: 'torch warns, once per process, of a [reference cycle]' (before, without 'once per
    process': loose, reader 6)."""
    rule_says("and torch warns, once per process, of a")
    assert_on_page(PAGE, "once per process unless\n`torch.set_warn_always(True)` is set")
    x = "x = torch.tensor(3.0, requires_grad=True)\n"
    assert _warnings_printed(x + "(x**3).backward(create_graph=True)\n" * 2) == 1
    always = "torch.set_warn_always(True)\n"
    assert _warnings_printed(always + x + "x.grad = None\n(x**3).backward(create_graph=True)\n" * 2) == 2
    assert _warnings_printed(x + "torch.autograd.grad(x**3, x, create_graph=True)\n") == 0
