"""Probes of the general sentences on docs/grad-is-none.md. Counter-cases: an intermediate off the
loss's path, a retained one, a `.grad` read on two lines, in a loop, and in a loop that enters
`warnings.catch_warnings()`, a one-element output, a random `gradient=`."""

from __future__ import annotations

import textwrap
import warnings

import pytest
import torch
from torch import nn

from tests.probes._lesson_text import NON_LEAF_WARNING, assert_on_page, stderr_of

PAGE = "grad-is-none.md"


def test_an_intermediates_grad_stays_none_whether_or_not_the_pass_went_through_it():
    """Sentence: 'An intermediate's `.grad` is still `None` after `backward()`: when the backward pass went
    through it, autograd computed its gradient on the way to the leaves, used it, and dropped it'. Before:
    '...is `None` after `backward()` because autograd computed its gradient', which an intermediate off the
    loss's path breaks (its gradient is never computed: its hook does not run)."""
    assert_on_page(
        PAGE, "An intermediate's `.grad` is still `None` after `backward()`: when the backward pass went through it"
    )
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


def test_reading_that_grad_warns_and_a_retained_one_does_not():
    """Sentence: 'Reading that `.grad` prints a `UserWarning`'. Counter-case: a retained intermediate,
    whose `.grad` is read without a warning (the sentence speaks of the dropped one)."""
    assert_on_page(PAGE, "Reading that `.grad` prints a `UserWarning`")
    code = textwrap.dedent(
        """
        import torch
        a = torch.tensor(2.0, requires_grad=True)
        dropped, kept = a * 3, a * 5
        kept.retain_grad()
        (dropped + kept).backward()
        kept.grad
        print("kept read")
        dropped.grad
        """
    )
    assert stderr_of(code).count(NON_LEAF_WARNING) == 1


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


@pytest.mark.parametrize(
    ("reads", "expected"),
    [
        ("for step in range(3):\n    b.grad", 1),  # one line, in a loop
        ("b.grad\nb.grad", 2),  # two lines
        ("for step in range(3):\n    b.grad\n    with warnings.catch_warnings():\n        pass", 3),
    ],
    ids=["a loop", "two lines", "a loop entering catch_warnings"],
)
def test_the_warning_is_shown_once_per_line_until_the_filters_change(reads, expected):
    """Sentence: 'Python's default filter shows it once per line of code that reads the attribute, so a
    loop that reads many non-leaves' `.grad` usually warns once [...] Code that enters
    `warnings.catch_warnings()` in the loop resets that memory, and then it repeats'. Before: 'shown once
    per line [...] in a loop, one', which the third case breaks (REVIEW.md, 53)."""
    assert_on_page(
        PAGE, "Code that enters `warnings.catch_warnings()` in the loop resets that memory, and then it repeats"
    )
    code = "import warnings, torch\nb = torch.tensor(2.0, requires_grad=True) * 3\n" + reads + "\n"
    assert stderr_of(code).count(NON_LEAF_WARNING) == expected


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
