"""Probes of the general sentences on faq/nan-gradients.md. Counter-cases: the NaN spread by an optimizer
step, anomaly mode's error naming the first node in backward order that returns NaN and its warning
pointing at the forward line, a masking value where log is finite."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page

PAGE = "faq/nan-gradients.md"


def test_where_backward_multiplies_zero_by_an_infinite_derivative():
    """Sentence: '`log`'s backward multiplies that zero by `1 / a`, which is infinite at 0: zero times
    infinity is NaN'. Counter-case: the forward value is 0 where a is 0."""
    assert_on_page(PAGE, "zero times infinity is NaN")
    assert torch.isnan(torch.tensor(0.0) * torch.tensor(float("inf")))
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    y = torch.where(a > 0, a.log(), 0)
    assert y[0].item() == 0.0 and torch.isinf(1 / a[0])


def test_one_nan_spreads_through_a_step_into_every_later_loss():
    """Sentence: 'One NaN is enough: an optimizer step spreads it into the weights, and every later loss is
    NaN'."""
    assert_on_page(PAGE, "One NaN is enough: an optimizer step spreads it into the weights")
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    out = model(x)
    torch.where(out > 1e9, out.log(), out).sum().backward()
    model.weight.grad[0, 0] = float("nan")
    opt.step()
    for _ in range(3):
        assert torch.isnan(model(torch.randn(4, 2)).pow(2).mean())


def test_anomaly_mode_names_the_first_node_to_return_nan_and_warns_with_the_forward_line():
    """Sentences: 'it checks what each node of the backward pass returns, and raises at the first that
    returns NaN, naming it' and 'Anomaly mode also warns with the traceback of the forward call that
    created that node'. Counter-case: two unsafe ops in a chain, sqrt after log in the forward pass, so
    reached first by the backward pass."""
    assert_on_page(PAGE, "and raises at the first that returns NaN, naming it")
    assert_on_page(PAGE, "Anomaly mode also warns with the traceback of the forward call that created that node")
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True, check_nan=True):
            inner = torch.where(a > 0, a.log(), 0)
            outer = torch.where(a > 0, (inner + a).sqrt(), 0)  # the forward line
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values"):
                outer.sum().backward()
    text = " ".join(str(w.message) for w in caught)
    assert "Error detected in SqrtBackward0" in text and "the forward line" in text


def test_masking_the_input_first_gives_zero_where_hidden():
    """Sentences: 'the masked-out element gets the zero gradient it should, and the others are unchanged',
    'The value put in for the hidden elements (1.0 here) never reaches `a.grad`; one where the derivative
    is finite also keeps anomaly mode from stopping at it'. Counter-case: a fill of 0, where log's
    derivative is infinite: the same a.grad, and anomaly mode raises."""
    assert_on_page(PAGE, "never reaches `a.grad`; one where the derivative is finite also keeps anomaly mode")
    for fill in (1.0, 7.0, 0.5, 0.0):
        a = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
        safe = torch.where(a > 0, a, fill)
        torch.where(a > 0, safe.log(), 0).sum().backward()
        assert a.grad.tolist() == [0.0, 1.0, 0.25]
    for fill, flagged in ((1.0, False), (0.0, True)):
        a = torch.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.set_detect_anomaly(True, check_nan=True):
                y = torch.where(a > 0, torch.where(a > 0, a, fill).log(), 0)
                try:
                    y.sum().backward()
                except RuntimeError as error:
                    assert flagged and "LogBackward0" in str(error)
                else:
                    assert not flagged
