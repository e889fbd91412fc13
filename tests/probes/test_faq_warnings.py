"""Probes of the general sentences on faq/warnings.md. Counter-cases: backward(inputs=[b]) (issue 20's
counter-example to rule 4), two reads on two lines, a .grad set by hand."""

from __future__ import annotations

import textwrap
import warnings

import torch

from tests.probes._lesson_text import NON_LEAF_WARNING, printed_by
from tests.probes._sentence import assert_on_page

PAGE = "faq/warnings.md"


def test_b_grad_stays_none_until_b_retains_its_gradient():
    """Sentence: 'so `backward()` leaves `b.grad` at `None`, now and after later passes, until it does: by
    `b.retain_grad()` before a pass, or by a pass that lists `b` in `backward(inputs=...)`'. Counter-case
    (the one issue 20 names): `c.backward(inputs=[b])` fills b.grad and leaves a.grad None. The words
    before said "`b.grad` is `None`": a `.grad` assigned by hand broke them (see the last lines)."""
    assert_on_page(PAGE, "so `backward()` leaves `b.grad` at `None`, now and after later passes, until it does")
    assert_on_page(PAGE, "or by a pass that lists `b` in `backward(inputs=...)`, which calls `retain_grad()` for it")
    assigned = torch.tensor(2.0, requires_grad=True) * 3
    assigned.grad = torch.tensor(1.0)
    assert not assigned.retains_grad and assigned.grad is not None
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    c = b * b
    c.backward(retain_graph=True)
    assert not b.retains_grad
    c.backward(inputs=[b], retain_graph=True)
    assert b.retains_grad and b.grad is not None
    assert torch.equal(a.grad, torch.tensor(36.0))


def test_the_default_filter_shows_it_once_per_line():
    """Sentence: 'Python's default filter shows a warning once per line of code that triggers it'.
    Counter-case: the same loop reading on two lines (two warnings), in a fresh interpreter."""
    assert_on_page(PAGE, "Python's default filter shows a warning once per line of code that triggers it")
    code = textwrap.dedent(
        """
        import torch
        b = torch.tensor(2.0, requires_grad=True) * 3
        for step in range(3):
            b.grad
            b.grad
        """
    )
    assert printed_by(code).count(NON_LEAF_WARNING) == 2


def test_a_change_of_the_warning_filters_resets_the_once_per_line_memory():
    """Sentence: 'shows a warning once per line of code that triggers it, until the warning filters change'.
    Counter-case: an empty catch_warnings block in the loop (it restores the filters on exit, a change)
    makes the same line warn on every iteration. The words naming catch_warnings were cut: no example on
    the page showed it."""
    assert_on_page(PAGE, "once per line of code that triggers it, until the warning filters change.")
    code = textwrap.dedent(
        """
        import warnings
        import torch
        b = torch.tensor(2.0, requires_grad=True) * 3
        for step in range(3):
            b.grad
            with warnings.catch_warnings():
                pass
        """
    )
    assert printed_by(code).count(NON_LEAF_WARNING) == 3


def test_when_the_warning_is_printed():
    """Sentence: 'torch prints this warning when code reads the `.grad` of a non-leaf that does not retain
    its gradient and has none'. Counter-cases: a non-leaf that retains (no warning), a non-leaf whose
    `.grad` was set by hand (no warning), a leaf with no `.grad` (no warning)."""
    assert_on_page(PAGE, "reads the `.grad` of a non-leaf that does not retain its gradient and has none")
    a = torch.tensor(2.0, requires_grad=True)
    kept, by_hand, plain = a * 3, a * 3, a * 3
    kept.retain_grad()
    by_hand.grad = torch.tensor(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for tensor in (kept, by_hand, a, plain):
            _ = tensor.grad
    assert len(caught) == 1 and "is not a leaf Tensor is being accessed" in str(caught[0].message)
