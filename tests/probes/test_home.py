"""Probes of the general sentences on docs/index.md, the home page. Counter-cases: results of operations
on tensors that need no grad, detach() and no_grad() results, an nn.Parameter, the meta device (standing
in for a GPU), backward(inputs=...) as another way of asking, a view made under no_grad() as the
transform of the fix; and the built pages' footers."""

from __future__ import annotations

import re
import warnings

import torch
import torch.nn as nn

from tests.conftest import TORCH_PIN
from tests.probes._sentence import assert_on_page
from tests.site_pages import built_pages

PAGE = "index.md"


def test_a_leaf_is_a_tensor_with_no_recorded_operation():
    """Sentence: 'A **leaf** is a tensor that autograd holds no recorded operation for (its `grad_fn` is
    `None`), such as a weight you created.' Counter-cases: results of operations autograd did not record
    (on data, under no_grad(), detach()) are leaves too; every result it recorded is not."""
    assert_on_page(
        PAGE, "A **leaf** is a tensor that autograd holds no recorded operation for (its [`grad_fn`]"
    )
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        unrecorded_from_w = w * 2
    tensors = [
        w,
        nn.Parameter(torch.ones(2)),
        torch.ones(2) * 2,
        unrecorded_from_w,
        (w * 2).detach(),
        w * 2,
        w.view(2),
        w[0],
        w.to(torch.float64),
    ]
    for t in tensors:
        assert t.is_leaf == (t.grad_fn is None)
    assert [t.is_leaf for t in tensors] == [True] * 5 + [False] * 4


def test_backward_fills_an_intermediates_grad_only_when_asked():
    """Sentence: 'The result of an operation autograd records, such as `w * 2`, is an **intermediate**, and
    `backward()` does not fill its `.grad` unless you ask it to.' Counter-cases: asking with retain_grad()
    and asking with backward(inputs=[h]) both fill it; not asking leaves None."""
    assert_on_page(PAGE, "`backward()` does not fill its `.grad` unless you ask it to")
    w = torch.ones(2, requires_grad=True)
    h = w * 2
    assert not h.is_leaf
    h.sum().backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the non-leaf .grad warning, which the lessons show
        assert h.grad is None
        h.sum().backward(inputs=[h], retain_graph=True)
        assert torch.equal(h.grad, torch.ones(2))
    g = w * 2
    g.retain_grad()
    g.sum().backward()
    assert torch.equal(g.grad, torch.ones(2))


def test_a_weight_scaled_or_moved_to_another_device_is_an_intermediate():
    """Sentence: 'A weight tensor scaled, or copied to another device with `tensor.to()`, after it was
    created, while autograd records, is an intermediate'. Counter-cases: an nn.Parameter, the meta device
    (this machine has no GPU), `.to(device, dtype)` together."""
    assert_on_page(
        PAGE,
        "copied to another device with `tensor.to()`, after it was created, while autograd records, is an intermediate",
    )
    for weight in (torch.ones(2, requires_grad=True), nn.Parameter(torch.ones(2))):
        for moved in (weight * 0.5, weight.to("meta"), weight.to("meta", torch.float64)):
            assert not moved.is_leaf and moved.grad_fn is not None


def test_the_fix_transform_under_no_grad_then_requires_grad():
    """Sentence: 'The fix is to create the tensor as it must end up, or to transform it under
    `torch.no_grad()` and then call `requires_grad_()`'. Counter-cases: the transform is a view of a leaf
    that requires grad, or a scaling of one; either way the result is a leaf that gets its `.grad`."""
    assert_on_page(PAGE, "or to transform it under `torch.no_grad()` and then call `requires_grad_()`")
    w = torch.ones(2, requires_grad=True)
    for transform in (lambda t: t * 0.5, lambda t: t.view(2, 1)):
        with torch.no_grad():
            v = transform(w)
        v.requires_grad_()
        (v * 3).sum().backward()
        assert v.is_leaf and torch.equal(v.grad, torch.full_like(v, 3.0))
    assert w.grad is None


def test_every_pages_footer_names_the_torch_and_python_that_printed_it(built_site):
    """Sentence: 'The footer of every page names the torch and Python versions that printed its outputs.'
    Counter-cases: every built page of the nav (the notebook page, the generated API index and versions
    pages among them), against the pinned torch and the Python running these tests. (404.html, outside the
    nav and without outputs, names neither.)"""
    assert_on_page(PAGE, "The footer of every page names the torch and Python versions that printed its outputs.")
    import platform

    pages = [built_site / p.strip("/") / "index.html" for p in built_pages(built_site)]
    for page in pages:
        # the last line of the page's content, above the theme's own footer
        line = re.findall(r'<p class="built-with">(.*?)</p>', page.read_text(encoding="utf-8"), re.S)
        assert len(line) == 1, page
        assert re.search(rf"\btorch {re.escape(TORCH_PIN)}\b", line[0]), (page, line)
        assert f"Python {platform.python_version()}" in line[0], (page, line)
