"""Probes of the general sentences on faq/module-hooks.md. Counter-cases: the hook's output under
no_grad(), a frozen first layer, the old hook before an in-place ReLU."""

from __future__ import annotations

import warnings

import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page

PAGE = "faq/module-hooks.md"


def test_a_full_backward_hook_returns_a_view_from_backward_hook_function():
    """Sentence: 'A full backward hook wraps the module's output in an autograd function,
    `BackwardHookFunction`, and returns a view of it.' Counter-case: the same module without the hook."""
    assert_on_page(PAGE, "A full backward hook wraps the module's output in an autograd function")
    layer = nn.Linear(4, 8)
    x = torch.randn(3, 4)
    assert not layer(x)._is_view()
    layer.register_full_backward_hook(lambda *args: None)
    out = layer(x)
    assert out._is_view() and "BackwardHookFunction" in out.grad_fn.name()


def _first_layer_fired(freeze: bool, input_requires_grad: bool) -> bool:
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    fired = []
    model[0].register_full_backward_hook(lambda *args: fired.append(True))
    model[0].requires_grad_(not freeze)
    with warnings.catch_warnings():
        # the 'no inputs require gradients' warning, shown on the page
        warnings.simplefilter("ignore")
        model(torch.randn(3, 4, requires_grad=input_requires_grad)).sum().backward()
    return bool(fired)


def test_the_hook_fires_unless_nothing_about_the_module_gets_a_gradient():
    """Sentence: 'The hook does **not** fire at all when nothing about the module gets a gradient'.
    Counter-cases: the first layer frozen but its input requiring grad (fires: the input gets one), and
    not frozen with data as input (fires: its parameters get one)."""
    assert_on_page(PAGE, "The hook does **not** fire at all when nothing about the module gets a gradient")
    assert not _first_layer_fired(freeze=True, input_requires_grad=False)
    assert _first_layer_fired(freeze=True, input_requires_grad=True)
    assert _first_layer_fired(freeze=False, input_requires_grad=False)


def _hooked_then_relu(register: str) -> tuple[list, str | None]:
    """A Linear hooked with `register`, followed by an in-place ReLU: what the hook got, and the error the
    forward pass raised."""
    layer = nn.Linear(4, 8)
    model = nn.Sequential(layer, nn.ReLU(inplace=True), nn.Linear(8, 2))
    got = []
    getattr(layer, register)(lambda module, grad_input, grad_output: got.append(len(grad_output)))
    try:
        with warnings.catch_warnings():
            # the old hook's deprecation warning, shown on the page
            warnings.simplefilter("ignore")
            out = model(torch.randn(3, 4, requires_grad=True))
    except RuntimeError as error:
        return got, str(error)
    out.sum().backward()
    return got, None


def test_the_full_hook_takes_the_same_fn_but_not_the_same_model():
    """Sentences: 'Both call `fn(module, grad_input, grad_output)`, so `register_full_backward_hook(fn)` takes
    the same `fn` as `register_backward_hook(fn)`. The model may not: a module with a full hook, followed by
    `nn.ReLU(inplace=True)` ..., raises in a forward pass whose output requires grad, where the old hook
    ran'. Before: 'the hook's signature is the same', which an in-place ReLU after the hooked module
    breaks; then '... raises in the forward pass', which a forward pass under no_grad() breaks (it runs).
    Counter-cases: that model, under each hook, with an fn of three arguments; under no_grad()."""
    assert_on_page(PAGE, "Both call `fn(module, grad_input, grad_output)`, so `register_full_backward_hook(fn)`")
    assert_on_page(
        PAGE, "followed by `nn.ReLU(inplace=True)` (as in torchvision's ResNets), raises in a forward pass whose output"
    )
    got, error = _hooked_then_relu("register_backward_hook")
    assert got == [1] and error is None
    got, error = _hooked_then_relu("register_full_backward_hook")
    assert got == [] and error.startswith("Output 0 of BackwardHookFunction is a view and is being modified inplace")
    layer = nn.Linear(4, 8)
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    with torch.no_grad():
        assert not nn.Sequential(layer, nn.ReLU(inplace=True))(torch.randn(3, 4)).requires_grad


def _forward_hooked(
    x: torch.Tensor, *, clone: bool = False, bias: bool = True
) -> tuple[bool, list, torch.Tensor, list]:
    """The page's model with the forward-hook fix on its first layer (returning `output.clone()` if asked;
    that layer without a bias if asked): whether that layer's output was a view, what the tensor hook got,
    d loss / d output computed without the in-place ReLU, and the warnings the pass gave."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8, bias=bias), nn.ReLU(inplace=True), nn.Linear(8, 2))
    got, view = [], []

    def hook_output(module, inputs, output):
        if output.requires_grad:
            view.append(output._is_view())
            output.register_hook(got.append)
            if clone:
                return output.clone()
        return None

    handle = model[0].register_forward_hook(hook_output)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model(x).sum().backward()
    handle.remove()
    assert model[0].weight.grad is not None
    h = model[0](x)
    (expected,) = torch.autograd.grad(model[2](torch.relu(h)).sum(), [h])
    return view[0], got, expected, [str(w.message) for w in caught]


def test_the_forward_hook_fix_needs_an_output_that_is_not_a_view():
    """Sentences: '**The fix** that leaves the model alone, for a module whose output is not a view: ... register a
    *forward* hook that hooks the output tensor itself ... it receives the gradient with respect to the module's
    output', 'An `nn.Linear` with a bias, given a contiguous input of 3 or more dimensions, returns a view
    (`output._is_view()` is how to check). A hook on a view does not run for its uses after an in-place write that
    moves its `_version`, ..., so in a model like this one the hook never fires, and nothing warns. There, have the
    forward hook also return `output.clone()`: ... the hook on `output` receives the gradient with respect to the
    module's output'. Before: 'The fix that leaves the model alone: ...', false (reader 8, F3): with the page's
    model given a 3-D input the tensor hook never fires, with no error and no warning, while the weights still get
    their gradients (/tmp/reader8/p15.py). Counter-cases: the page's 2-D input (not a view: the hook gets d loss / d
    output), the 3-D input (a view: nothing), the 3-D input with the clone returned (the hook gets d loss / d output
    again). Before: 'An `nn.Linear` given a 3-D input returns a view', loose (reader 9, L4): without a bias, or
    given a non-contiguous 3-D input, its output is no view (/tmp/reader9/p8.py). Cases of the narrowed words: 3-D,
    4-D and 5-D contiguous inputs, one that requires grad, a float64 one, and the page's model given a 4-D input
    (nothing). Counter-cases: the same without a bias, and non-contiguous 3-D inputs (a transpose, a slice of the
    last dimension, an `expand`), none a view, where the page's model with the plain fix gets d loss / d output."""
    assert_on_page(PAGE, "**The fix** that leaves the model alone, for a module whose output is not a view:")
    assert_on_page(
        PAGE,
        "An `nn.Linear` with a bias, given a contiguous input of 3 or more dimensions, returns a view"
        " (`output._is_view()` is how to check).",
    )
    assert_on_page(PAGE, "A hook on a view does not run for its uses after an in-place write that moves its `_version`")
    assert_on_page(PAGE, "so in a model like this one the hook never fires, and nothing warns.")
    assert_on_page(PAGE, "There, have the forward hook also return `output.clone()`: the in-place ReLU then writes the")
    assert_on_page(PAGE, "the hook on `output` receives the gradient with respect to the module's output")
    view, got, expected, warned = _forward_hooked(torch.randn(3, 4))
    assert not view and len(got) == 1 and torch.equal(got[0], expected) and not warned
    view, got, expected, warned = _forward_hooked(torch.randn(2, 3, 4))
    assert view and got == [] and not warned
    view, got, expected, warned = _forward_hooked(torch.randn(2, 3, 4), clone=True)
    assert view and len(got) == 1 and torch.equal(got[0], expected) and not warned
    view, got, expected, warned = _forward_hooked(torch.randn(2, 2, 3, 4))
    assert view and got == [] and not warned
    contiguous = [torch.randn(2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(2, 1, 2, 3, 4)]
    contiguous += [torch.randn(2, 3, 4, requires_grad=True), torch.randn(2, 3, 4, dtype=torch.float64)]
    strided = [torch.randn(3, 2, 4).transpose(0, 1), torch.randn(2, 3, 8)[..., :4]]
    strided.append(torch.randn(1, 3, 4).expand(2, 3, 4))
    for x in contiguous + strided:
        for bias in (True, False):
            linear = nn.Linear(4, 8, bias=bias, dtype=x.dtype)
            assert linear(x)._is_view() == (bias and x.is_contiguous()), (tuple(x.shape), x.stride(), bias)
    for x, bias in [(torch.randn(2, 3, 4), False), (strided[0], True), (strided[1], True)]:
        view, got, expected, warned = _forward_hooked(x, bias=bias)
        assert not view and len(got) == 1 and torch.equal(got[0], expected) and not warned
