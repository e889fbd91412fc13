"""Probes of docs/faq/index.md: 'Error headings are the exact text torch prints'. Each message the index
quotes is raised (or warned) here by the shortest code that triggers it, written for this probe (not the
FAQ's snippets), and torch's message must contain the quoted words. Also the causes the index lists for
'element 0 ...', and the parenthesis on the BackwardHookFunction message."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn

from tests.probes._lesson_text import printed_by
from tests.probes._sentence import assert_on_page

PAGE = "faq/index.md"


def _leaf():
    return torch.ones(3, requires_grad=True)


def _inplace_on_saved():
    a = _leaf()
    b = a.sigmoid()
    b.mul_(2)
    b.sum().backward()


def _backward_twice():
    y = (_leaf() * 2).exp().sum()
    y.backward()
    y.backward()


def _unused():
    a, b = _leaf(), _leaf()
    torch.autograd.grad((a * 2).sum(), [a, b])


def _inplace_relu_after_full_hook():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True))
    model[0].register_full_backward_hook(lambda *args: None)
    model(torch.randn(2, 3, requires_grad=True)).sum().backward()


def _inference_saved():
    with torch.inference_mode():
        x = torch.ones(3)
    (nn.Linear(3, 1)(x)).sum().backward()


def _nonscalar():
    (_leaf() * 2).backward()


RAISED = {
    "can't optimize a non-leaf Tensor": (ValueError, lambda: torch.optim.SGD([_leaf() * 2], lr=0.1)),
    "element 0 of tensors does not require grad and does not have a grad_fn": (
        RuntimeError,
        lambda: torch.ones(3).sum().backward(),
    ),
    "Only Tensors of floating point and complex dtype can require gradients": (
        RuntimeError,
        lambda: torch.tensor([1, 2], requires_grad=True),
    ),
    "only Tensors of floating point dtype can require gradients": (
        RuntimeError,
        lambda: torch.tensor([1, 2]).requires_grad_(),
    ),
    "you can only change requires_grad flags of leaf variables.": (
        RuntimeError,
        lambda: (_leaf() * 2).requires_grad_(False),
    ),
    "a leaf Variable that requires grad is being used in an in-place operation.": (
        RuntimeError,
        lambda: _leaf().add_(1),
    ),
    "a view of a leaf Variable that requires grad is being used in an in-place operation.": (
        RuntimeError,
        lambda: _leaf()[:2].add_(1),
    ),
    "one of the variables needed for gradient computation has been modified by an inplace operation": (
        RuntimeError,
        _inplace_on_saved,
    ),
    "Trying to backward through the graph a second time": (RuntimeError, _backward_twice),
    "cannot register a hook on a tensor that doesn't require gradient": (
        RuntimeError,
        lambda: torch.ones(3).register_hook(lambda grad: grad),
    ),
    "The differentiated Tensor at index 1 appears to not have been used in the graph.": (RuntimeError, _unused),
    "Output 0 of BackwardHookFunction is a view and is being modified inplace.": (
        RuntimeError,
        _inplace_relu_after_full_hook,
    ),
    "grad can be implicitly created only for scalar outputs": (RuntimeError, _nonscalar),
    "Inference tensors cannot be saved for backward.": (RuntimeError, _inference_saved),
}


@pytest.mark.parametrize("message", list(RAISED))
def test_a_quoted_error_is_the_text_torch_raises(message):
    """Sentence: 'Error headings are the exact text torch prints'. Counter-case: the error raised by code
    of this probe's own, for each message the index quotes."""
    assert_on_page(PAGE, "Error headings are the exact text torch prints")
    assert_on_page(PAGE, f"`{message}`")
    expected, trigger = RAISED[message]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(expected) as raised:
            trigger()
    assert message in str(raised.value)


# Some of these warnings are TORCH_WARN_ONCE (the create_graph one): once per process, so an earlier
# test could have used it up. Each is triggered in a fresh interpreter.
_PRELUDE = "import torch\nimport torch.nn as nn\n"
WARNED = {
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak.": "w = torch.ones(3, requires_grad=True)\n"
    "(w * w).sum().backward(create_graph=True)",
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated": (
        "m = nn.Sequential(nn.Linear(3, 3), nn.ReLU())\n"
        "m.register_backward_hook(lambda *args: None)\n"
        "m(torch.randn(2, 3)).sum().backward()"
    ),
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients.": (
        "m = nn.Linear(3, 3)\n"
        "m.register_full_backward_hook(lambda *args: None)\n"
        "m(torch.randn(2, 3)).sum().backward()"
    ),
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.": (
        "(torch.ones(3, requires_grad=True) * 2).grad"
    ),
}


@pytest.mark.parametrize("message", list(WARNED))
def test_a_quoted_warning_is_the_text_torch_warns(message):
    """Sentence: 'Error headings are the exact text torch prints' (the warnings the index quotes).
    Counter-case: the warning of code of this probe's own, in a fresh interpreter."""
    assert_on_page(PAGE, f"`{message}`")
    assert message in " ".join(printed_by(_PRELUDE + WARNED[message]).split())


def _element0_causes():
    model = nn.Linear(4, 1)
    x = torch.randn(8, 4)
    with torch.no_grad():
        yield "no_grad()", model(x).sum()
    yield "`requires_grad` missing", (x @ torch.randn(4, 1)).sum()
    yield "detach()", model(x).detach().sum()
    yield "a frozen model", nn.Linear(4, 1).requires_grad_(False)(x).sum()
    yield ".item()", torch.tensor(model(x).sum().item())
    yield "numpy", torch.tensor(model(x).detach().numpy().sum())


def test_each_usual_cause_raises_element_0():
    """Sentence: '(its usual causes: `no_grad()`, `requires_grad` missing, `detach()`, a frozen model,
    `.item()` or numpy)'. Counter-case: each cause written here, on a Linear model."""
    assert_on_page(
        PAGE, "`no_grad()`, `requires_grad` missing, `detach()`, a frozen model, `.item()` or numpy)"
    )
    causes = list(_element0_causes())
    assert len(causes) == 6
    for cause, loss in causes:
        try:
            loss.backward()
        except RuntimeError as error:
            assert "element 0 of tensors does not require grad" in str(error), cause
        else:
            raise AssertionError(f"{cause}: backward() ran")


def test_the_backward_hook_function_error_comes_with_an_inplace_relu():
    """Sentence: '(a full backward hook followed by `nn.ReLU(inplace=True)`)'. Counter-case: the same model
    without the hook, or with an out-of-place ReLU: no error."""
    assert_on_page(PAGE, "(a full backward hook followed by `nn.ReLU(inplace=True)`)")
    for hooked, inplace in ((False, True), (True, False)):
        model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=inplace))
        if hooked:
            model[0].register_full_backward_hook(lambda *args: None)
        model(torch.randn(2, 3, requires_grad=True)).sum().backward()
    with pytest.raises(RuntimeError, match="Output 0 of BackwardHookFunction is a view"):
        _inplace_relu_after_full_hook()


def test_backward_needs_gradient_only_on_more_than_one_element():
    """Sentence: '(`backward()` without `gradient=` on an output of more than one element)'. Counter-case:
    outputs of shape (1,) and (1, 1), which are not scalars but hold one number: `backward()` runs (the
    words said "a non-scalar output" before); two elements raise the quoted error."""
    assert_on_page(PAGE, "(`backward()` without `gradient=` on an output of more than one element)")
    for shape in ((1,), (1, 1)):
        x = torch.ones(shape, requires_grad=True)
        (x * 2).backward()
        assert x.dim() > 0 and torch.equal(x.grad, torch.full(shape, 2.0))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (torch.ones(2, requires_grad=True) * 2).backward()
