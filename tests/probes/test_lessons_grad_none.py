"""Probes of the general sentences on docs/grad-is-none.md. Counter-cases: an intermediate off the
loss's path, a retained one, one listed in `inputs=`, a one-element output, a random `gradient=`.
Cut with their probes (issue 42's reader): 'Reading that `.grad` prints a `UserWarning`' (a second read
from the same line prints nothing; the page's section on the warning says once per line, with rule 12),
'These five causes leave a weight's `.grad` None most often' (a frequency no example shows), and 'An
unused branch of `forward()`, an `if` not taken, does the same' (no example on the page)."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from tests.probes._sentence import assert_on_page

PAGE = "grad-is-none.md"


def test_an_intermediates_grad_stays_none_whether_or_not_the_pass_went_through_it():
    """Sentences: 'An intermediate's `.grad` is still `None` after `backward()`, unless it called
    `retain_grad()` or the call listed it in `inputs=`. When the backward pass went through it, autograd
    computed its gradient on the way to the leaves, used it, and dropped it'. Before: '... after
    `backward()`: when ...', which `backward(inputs=[b])` breaks (reader 3, L3): it fills the non-leaf
    `b`'s `.grad` with no `retain_grad()` and no warning. Before that: '...is `None` after `backward()`
    because autograd computed its gradient', which an intermediate off the loss's path breaks (its
    gradient is never computed: its hook does not run). Counter-cases: both exceptions, and an
    intermediate between the output and a listed one (not filled)."""
    assert_on_page(
        PAGE,
        "An intermediate's `.grad` is still `None` after `backward()`, unless it called `retain_grad()` or the call"
        " listed it in [`inputs=`](faq/backward-options.md#backward-inputs). When the backward pass went through it",
    )
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    between = b * 3
    retained = between * 1
    retained.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (retained * retained).sum().backward(inputs=[b], retain_graph=True)
        assert torch.equal(b.grad, 18 * b) and a.grad is None and retained.grad is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert between.grad is None
    a = torch.tensor(2.0, requires_grad=True)
    on_path, off_path = a * 3, a * 5
    seen = []
    on_path.register_hook(lambda g: seen.append(("on", g)))
    off_path.register_hook(lambda g: seen.append(("off", g)))
    (on_path + 1).backward()
    assert seen == [("on", torch.tensor(1.0))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert on_path.grad is None and off_path.grad is None


def test_retain_grad_before_the_pass_keeps_it_and_after_does_not():
    """Sentence: 'To keep the gradient, call `retain_grad()` before the backward pass'. Counter-case:
    `retain_grad()` after the pass (nothing to recover)."""
    assert_on_page(PAGE, "To keep the gradient, call `retain_grad()` before the backward pass")
    a = torch.tensor(2.0, requires_grad=True)
    before, after = a * 3, a * 5
    before.retain_grad()
    (before + after).backward()
    after.retain_grad()
    assert torch.equal(before.grad, torch.tensor(1.0)) and after.grad is None


def test_keeping_every_intermediates_gradient_costs_as_much_as_the_intermediates():
    """Sentence: 'Keeping the gradient of every intermediate as well would take as much memory again as the
    intermediates themselves'. Counter-case: retain them all and count what their .grad hold."""
    assert_on_page(PAGE, "would take as much memory again as the intermediates themselves")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    h, kept = torch.randn(5, 8), []
    for layer in model:
        h = layer(h)
        h.retain_grad()
        kept.append(h)
    h.sum().backward()
    assert sum(t.grad.numel() for t in kept) == sum(t.numel() for t in kept)


def test_the_extra_part_grows_with_the_batch_and_the_parameters_part_does_not():
    """Sentence: 'the extra part grows with the batch size, while the parameters' part does not'."""
    assert_on_page(PAGE, "the extra part grows with the batch size, while the parameters' part does not")
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))

    def intermediates(batch: int) -> int:
        h, total = torch.randn(batch, 8), 0
        for layer in model:
            h = layer(h)
            total += h.numel()
        return total

    assert intermediates(512) == 2 * intermediates(256)


def test_backward_without_an_argument_needs_a_single_number():
    """Sentence: '`backward()` with no argument differentiates a single real number. On a tensor of several
    numbers it needs to be told how much each one counts, with `gradient=`'. Counter-cases: a tensor of
    shape (1,) or (1, 1), one number that is not 0-dimensional (it works); a complex number (refused: the
    sentence said "a single number" before)."""
    assert_on_page(PAGE, "`backward()` with no argument differentiates a single real number")
    for shape in ((), (1,), (1, 1)):
        x = torch.ones(shape, requires_grad=True)
        (x * 2).backward()
        assert torch.equal(x.grad, torch.full(shape, 2.0))
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    z = torch.tensor(1 + 1j, requires_grad=True)
    with pytest.raises(RuntimeError, match="only for real scalar outputs"):
        (z * z).backward()


def test_backward_with_gradient_v_is_the_gradient_of_y_times_v_summed():
    """Sentence: '`y.backward(gradient=v)` computes the gradient of `(y * v).sum()`'. Counter-case: a
    random `v`, not the ones of the example, and a non-elementwise `y`."""
    assert_on_page(PAGE, "`y.backward(gradient=v)` computes the gradient of `(y * v).sum()`")
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    m = torch.randn(4, 3)
    v = torch.randn(4)
    (m @ x.exp()).backward(gradient=v)
    (expected,) = torch.autograd.grad(((m @ x.exp()) * v).sum(), [x])
    assert torch.allclose(x.grad, expected)


def test_the_leaf_before_the_product_gets_the_gradient():
    """Sentence: 'The leaf before the product got the gradient.' Counter-case: a chain of two products."""
    assert_on_page(PAGE, "The leaf before the product got the gradient.")
    leaf = torch.randn(3, requires_grad=True)
    w = leaf * 0.01
    (w * 2).sum().backward()
    assert torch.allclose(leaf.grad, torch.full((3,), 0.02))
    leaf.grad = None
    ((leaf * 0.01) * 0.5 * 2).sum().backward()
    assert torch.allclose(leaf.grad, torch.full((3,), 0.01))


@pytest.mark.parametrize("zero", ["optimizer", "module"])
def test_zero_grad_sets_none_and_set_to_none_false_fills_zeros(zero):
    """Sentence: '`zero_grad()` sets `.grad` to None. With `set_to_none=False` it fills a `.grad` that
    exists with zeros instead'. Counter-cases: `Module.zero_grad` and `Optimizer.zero_grad`, a `.grad`
    that is None before `set_to_none=False` (it stays None), the same tensor kept."""
    assert_on_page(
        PAGE,
        "`zero_grad()` sets `.grad` to None. With `set_to_none=False` it fills a `.grad` that exists with zeros "
        "instead"
    )
    layer, unused = nn.Linear(2, 1), nn.Linear(2, 1)
    params = [*layer.parameters(), *unused.parameters()]
    target = torch.optim.SGD(params, lr=0.1) if zero == "optimizer" else nn.ModuleList([layer, unused])
    layer(torch.randn(4, 2)).sum().backward()
    grad = layer.weight.grad
    target.zero_grad(set_to_none=False)
    assert layer.weight.grad is grad and torch.equal(grad, torch.zeros_like(grad))
    assert unused.weight.grad is None
    target.zero_grad()
    assert layer.weight.grad is None


def test_a_frozen_parameter_gets_no_gradient_and_keeps_an_old_one():
    """Sentence: 'A parameter with `requires_grad=False` gets no gradient'. Counter-case: one frozen after
    a pass keeps the `.grad` it had, unchanged by the next pass (it gets nothing new)."""
    assert_on_page(PAGE, "A parameter with `requires_grad=False` gets no gradient")
    p, q = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    p.requires_grad_(False)
    (p * q).sum().backward()
    assert p.grad is None
    (q * 3).sum().backward()
    q.requires_grad_(False)
    before = q.grad.clone()
    r = nn.Parameter(torch.ones(2))
    (p * q * r).sum().backward()
    assert torch.equal(q.grad, before) and p.grad is None and r.grad is not None
