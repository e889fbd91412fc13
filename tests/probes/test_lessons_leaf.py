"""Probes of the general sentences on docs/leaf-vs-intermediate.md (the first lesson) and docs/index.md,
which share its definitions. Each tries the counter-case an expert would try first; where torch broke
the words, they were narrowed (the docstring says what the sentence said before)."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from tests.conftest import ROOT
from tests.probes._sentence import assert_on_page

PAGE = "leaf-vs-intermediate.md"
HOME = "index.md"


def made_several_ways() -> dict[str, torch.Tensor]:
    """Tensors made every way the counter-cases need: factories, parameters, recorded and unrecorded
    operations, integer and boolean results, `*_like` factories, views, detach and no_grad."""
    w = torch.randn(4, requires_grad=True)
    h = w * 2
    with torch.no_grad():
        under_no_grad = w * 2
        view_under_no_grad = h[:2]
    detached = h * 1
    detached.detach_()
    return {
        "w": w,
        "nn.Parameter": nn.Parameter(torch.zeros(2)),
        "frozen nn.Parameter": nn.Parameter(torch.zeros(2), requires_grad=False),
        "h = w * 2": h,
        "w.argmax()": w.argmax(),
        "w.long()": w.long(),
        "w > 0": w > 0,
        "torch.zeros_like(w)": torch.zeros_like(w),
        "w.new_ones(2)": w.new_ones(2),
        "torch.max(w, 0).values": torch.max(w, 0).values,
        "torch.max(w, 0).indices": torch.max(w, 0).indices,
        "w.view(torch.int32)": w.view(torch.int32),
        "w.detach()": w.detach(),
        "(w * 1).detach_()": detached,
        "w * 2 under no_grad": under_no_grad,
        "h[:2] under no_grad": view_under_no_grad,
        "w.data": w.data,
    }


@pytest.mark.parametrize("page", [PAGE, HOME])
def test_a_leaf_is_a_tensor_without_a_recorded_operation(page):
    """Sentence: 'A leaf is a tensor that autograd holds no recorded operation for (its grad_fn is None)'.
    Before: 'a tensor no recorded operation produced' (index: 'that no recorded operation produced'),
    which `(w * 1).detach_()` breaks: a recorded operation produced it, and it is a leaf. Counter-cases:
    every way of making a tensor above, `is_leaf` against `grad_fn is None`."""
    assert_on_page(
        page,
        "is a tensor that autograd holds no recorded operation for"
        " (its [`grad_fn`](inside-the-graph.md#reading-grad_fn) is `None`)",
    )
    broken = {
        name: (t.is_leaf, t.grad_fn) for name, t in made_several_ways().items() if t.is_leaf != (t.grad_fn is None)
    }
    assert not broken


@pytest.mark.parametrize("page", [PAGE, HOME])
def test_the_result_of_a_recorded_operation_is_an_intermediate(page):
    """Sentence: 'The result of an operation autograd records[, such as `w * 2`,] is an intermediate'.
    Before: 'A tensor that autograd computes from one that requires grad is an intermediate' (and, on the
    home page, 'Every tensor autograd computes from them'), which `w.argmax()`, `w.long()`,
    `torch.zeros_like(w)` and the indices of `torch.max(w, 0)` break: computed from `w`, and leaves.
    Counter-cases: the same; a recorded operation is one that leaves a grad_fn on its result."""
    assert_on_page(page, "result of an operation autograd records")
    for name, t in made_several_ways().items():
        assert (t.grad_fn is not None) == (not t.is_leaf), name
    w = torch.randn(4, requires_grad=True)
    for t in (w.argmax(), w.long(), torch.zeros_like(w), torch.max(w, 0).indices):
        assert t.is_leaf and not t.requires_grad


@pytest.mark.parametrize("page", [PAGE, HOME])
def test_backward_does_not_fill_an_intermediates_grad_unless_asked(page):
    """Sentence: '`backward()` does not fill its `.grad` unless you ask it to'. Counter-cases: the two
    ways of asking (`retain_grad()`, and `backward(inputs=[b])`, which calls `retain_grad()` for `b`: issue
    20's counter-example to rule 4), and an intermediate off the loss's path that asked and still got
    nothing filled."""
    assert_on_page(page, "does not fill its `.grad` unless you ask it to")
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    off_path = a * 5
    off_path.retain_grad()
    c = b * b
    c.backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert b.grad is None
    c.backward(inputs=[b])
    assert b.retains_grad and torch.equal(b.grad, torch.tensor(12.0))
    assert off_path.grad is None
    d = a * 3
    d.retain_grad()
    (d * d).backward()
    assert torch.equal(d.grad, torch.tensor(12.0))


def test_a_weight_handed_back_by_an_everyday_operation_keeps_no_grad():
    """Sentence: 'Your weight's `.grad` is `None` when an everyday operation (`.to()`, `.view()`, `* 0.01`)
    handed you an intermediate instead'. Counter-cases: each of the three, and `.to()` to where the
    weight already is (which hands back the weight itself, a leaf, so its .grad is filled)."""
    assert_on_page(PAGE, "Your weight's `.grad` is `None` when an everyday operation")
    torch.manual_seed(0)
    for make in (lambda w: w.to(torch.float64), lambda w: w.view(2, 2), lambda w: w * 0.01):
        w = make(torch.randn(4, requires_grad=True))
        (w**2).sum().backward()
        assert not w.is_leaf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert w.grad is None
    same = torch.randn(4, requires_grad=True).to("cpu")
    (same**2).sum().backward()
    assert same.is_leaf and same.grad is not None


def test_the_everyday_operations_are_pointed_to_not_stated():
    """Sentence: 'A weight is `a`, but the tensor your code holds may be a `b`: [which operations make a
    non-leaf](#which-operations-make-a-non-leaf) shows `.to()`, `.view()` and `* 0.01` on a weight.' It
    names what the example below shows, and states no rule. Before: 'With grad mode on and inference mode
    off, autograd records `.to()` to another floating-point dtype or another device, `.view()` [...] and
    `* 0.01` on a tensor that requires grad and was made outside inference mode. What they return is an
    intermediate.', narrowed five times and using terms no earlier page teaches (issue 42's reader): cut,
    its probes with it. The home page's reading order said '`.to()` to another device or dtype', which
    `.to(torch.int64)` breaks (a leaf): cut too. Checks: the example shows each of the three on a weight
    that requires grad, and each gives an intermediate. Counter-cases: `.to()` to an integer dtype and
    to the device the weight is on (leaves, as the example's last row shows for the second)."""
    assert_on_page(PAGE, "A weight is `a`, but the tensor your code holds may be a `b`: [which operations make a")
    assert_on_page(PAGE, "shows `.to()`, `.view()` and `* 0.01` on a weight.")
    assert_on_page(PAGE, "### Which operations make a non-leaf")
    snippet = (ROOT / "snippets/leaves/ops_make_non_leaves.py").read_text(encoding="utf-8")
    assert "w = torch.randn(2, 2, requires_grad=True)" in snippet
    for code in ('"w.to(float64)": w.to(float64)', '"w.view(4)": w.view(4)', '"w * 0.01": w * 0.01'):
        assert code in snippet, code
    w = torch.randn(2, 2, requires_grad=True)
    for made in (w.to(torch.float64), w.view(4), w * 0.01):
        assert not made.is_leaf and made.grad_fn is not None
    for made in (w.to(torch.int64), w.to("cpu")):
        assert made.is_leaf and made.grad_fn is None
    for page in (PAGE, HOME):
        assert "to another device or dtype" not in " ".join((ROOT / "docs" / page).read_text("utf-8").split())


def test_to_an_integer_dtype_records_nothing_and_cannot_require_grad():
    """Sentence: 'To an integer or boolean dtype it records nothing: that copy is a leaf that cannot
    require grad'. Before: '`.to(dtype)` copies, and records the copy: `ToCopyBackward0`', which
    `w.to(torch.int64)` breaks. Counter-case: `requires_grad_()` on that copy."""
    assert_on_page(
        PAGE, "To an integer or boolean dtype it records nothing: that copy is a leaf that cannot require grad"
    )
    w = torch.randn(3, requires_grad=True)
    for dtype in (torch.int64, torch.int8, torch.bool):
        t = w.to(dtype)
        assert t.is_leaf and t.grad_fn is None and not t.requires_grad
        with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
            t.requires_grad_()


def test_views_and_arithmetic_get_a_grad_fn_of_their_own():
    """Sentence: '`.view(4)`, `.reshape()` and slicing give tensors with a `grad_fn` of their own
    [...], and so does binary arithmetic'. Before: '... and so does arithmetic', which unary plus breaks
    (reader 3, L2): `+w` is `w` itself, a leaf. Before that: '`.view()`', which `w.view(torch.int32)`
    breaks (a leaf). Counter-cases: `w[:]`, a reshape that must copy, each of Python's binary arithmetic
    operators with a number or a tensor on either side, those with no derivative (`w // 2`, whose
    grad_fn raises only when backward reaches it)."""
    import operator

    assert_on_page(PAGE, "`.view(4)`, `.reshape()` and slicing give tensors with a `grad_fn` of their own")
    assert_on_page(PAGE, "and so does binary arithmetic:")
    w = torch.randn(4, requires_grad=True)
    transposed = torch.randn(2, 3, requires_grad=True).t()
    square = torch.randn(2, 2, requires_grad=True)  # the page's example: a 2 x 2 leaf viewed flat
    for t in (square.view(4), w.view(2, 2), w.reshape(2, 2), w[:2], w[:], transposed.reshape(6), w * 0.01):
        assert t.grad_fn is not None and t.grad_fn is not w.grad_fn
    binary = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow)
    for op in binary:
        for other in (2, 0.5, torch.full((4,), 0.5)):
            assert op(w, other).grad_fn is not None and op(other, w).grad_fn is not None, (op, other)
    assert (square @ square).grad_fn is not None and (square @ torch.ones(2, 2)).grad_fn is not None
    assert (+w) is w and (-w).grad_fn is not None  # unary: not in the words
    assert w.view(torch.int32).grad_fn is None


def test_to_where_the_tensor_is_returns_itself_unless_copy():
    """Sentences: '`.to()` to the dtype the tensor has and a device equal to `t.device` returns the tensor itself
    (without `copy=True` or `memory_format=`)'. Before: '... (without `copy=True`)', loose (reader 10, L1): on a 4-D
    leaf that requires grad, `.to(memory_format=torch.channels_last)` keeps the dtype and device yet records a copy
    (/tmp/reader10/p1.py: "to channels_last: False <ToCopyBackward0 ...>"), as it does on a (1, 2, 1, 1) tensor that
    is already channels_last-contiguous. Before that: '`.to()` to the dtype and device the tensor has returns the
    tensor itself', loose (reader 9, L1): `"cpu:0"` names the device a CPU tensor is on, yet `torch.device("cpu:0")
    != w.device`, and `w.to("cpu:0")` is a recorded copy whose `.grad` stays None while `w` gets the gradient
    (/tmp/reader9/p2.py). Before that: '`.to()` to where the tensor already is returns the tensor itself', which
    `w.to("cpu", copy=True)` breaks. Counter-cases: `copy=True`, the same device with another dtype, the meta device
    with the same dtype, `"cpu:0"` and `torch.device("cpu", 0)` (with and without the dtype). Cases of the words:
    `"cpu"`, `torch.device("cpu")`, the dtype alone, `.to(other_tensor)` of the same dtype and device (whose device
    is `cpu` even when made with `device="cpu:0"`)."""
    assert_on_page(
        PAGE, "`.to()` to the dtype the tensor has and a device equal to `t.device` returns the tensor itself"
    )
    assert_on_page(PAGE, "(without `copy=True` or `memory_format=`)")
    w = torch.randn(4, requires_grad=True)
    same = ("cpu", torch.device("cpu"), torch.float32, torch.empty(1), torch.empty(1, device="cpu:0"))
    assert all(w.to(arg) is w for arg in same) and w.to("cpu", torch.float32) is w
    assert str(w.device) == "cpu" and torch.device("cpu") == w.device
    for device in ("cpu:0", torch.device("cpu", 0)):
        assert torch.device(device) != w.device
        for other in (w.to(device), w.to(device, torch.float32)):
            assert other is not w and not other.is_leaf and other.grad_fn.name() == "ToCopyBackward0"
    for other in (w.to("cpu", copy=True), w.to(torch.float32, copy=True), w.to("cpu", torch.float64), w.to("meta")):
        assert other is not w and not other.is_leaf
    for x in (torch.randn(1, 2, 3, 3, requires_grad=True), torch.randn(1, 2, 1, 1, requires_grad=True)):
        other = x.to(memory_format=torch.channels_last)
        assert other is not x and other.grad_fn.name() == "ToCopyBackward0"
    copy = w.to("cpu:0")
    (copy * 2).sum().backward()
    assert torch.equal(w.grad, torch.full((4,), 2.0)) and copy.data_ptr() != w.data_ptr()


def test_w2_is_already_a_leaf_before_requires_grad_():
    """Sentence: 'The result is already a leaf, one that does not require grad. `requires_grad_()` only
    sets its flag'. Before: 'then call `requires_grad_()`, which turns the result into a leaf in place'
    (issue 20: false). Counter-case: the same tensor object before and after, `w0` requiring grad."""
    assert_on_page(
        PAGE, "The result is already a leaf, one that does not require grad. `requires_grad_()` only sets its flag"
    )
    w0 = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        w2 = w0.to(torch.float64) * 0.01
    before = (w2.is_leaf, w2.requires_grad, w2.grad_fn)
    same = w2.requires_grad_()
    assert before == (True, False, None)
    assert same is w2 and w2.is_leaf and w2.requires_grad and w2.grad_fn is None


def test_requires_grad_on_a_recorded_result_changes_nothing_and_raises_nothing():
    """Sentence: '`requires_grad_()` on the result of a recorded operation changes nothing and raises
    nothing'. Counter-cases: `.to()`, `* 0.01`, a view; and `requires_grad_(False)`, which is not
    `requires_grad_()` and does raise."""
    assert_on_page(PAGE, "`requires_grad_()` on the result of a recorded operation changes nothing and raises nothing")
    w0 = torch.randn(4, requires_grad=True)
    for t in (w0.to(torch.float64), w0 * 0.01, w0.view(2, 2)):
        before = (t.is_leaf, t.requires_grad, t.grad_fn)
        t.requires_grad_()
        assert (t.is_leaf, t.requires_grad, t.grad_fn) == before
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (w0 * 0.01).requires_grad_(False)


def test_a_tensor_that_does_not_require_grad_is_a_leaf():
    """Sentence: 'A tensor with `requires_grad=False` is a leaf too, even one computed from other tensors,
    because nothing was recorded'. Counter-cases: results computed under `no_grad()`, integer results of
    a tensor that requires grad, `.data`, `detach()`, `detach_()` of an intermediate."""
    assert_on_page(PAGE, "A tensor with `requires_grad=False` is a leaf too, even one computed from other tensors")
    for name, t in made_several_ways().items():
        if not t.requires_grad:
            assert t.is_leaf, name


def test_being_a_leaf_does_not_mean_getting_a_gradient():
    """Sentence: 'Being a leaf says where a tensor sits in the graph, not that it will get a gradient'.
    Counter-cases tried for the opposite (a leaf that gets one always): a leaf off the loss's path, a
    frozen parameter, a leaf left out of `inputs=`."""
    assert_on_page(PAGE, "Being a leaf says where a tensor sits in the graph, not that it will get a gradient")
    a, off_path, left_out = (torch.tensor(2.0, requires_grad=True) for _ in range(3))
    frozen = nn.Parameter(torch.tensor(1.0), requires_grad=False)
    (a * frozen * left_out).backward(inputs=[a])
    assert a.grad is not None
    assert off_path.grad is None and frozen.grad is None and left_out.grad is None
    assert all(t.is_leaf for t in (a, off_path, frozen, left_out))


def test_a_recorded_operation_gives_a_non_leaf_with_a_grad_fn():
    """Sentence: 'The result of a recorded operation is a non-leaf, with a `grad_fn`'. Counter-case: an
    operation with two outputs, one recorded (`values`) and one not (`indices`): the words hold for the
    recorded one."""
    assert_on_page(PAGE, "The result of a recorded operation is a non-leaf, with a `grad_fn`")
    w = torch.randn(3, 4, requires_grad=True)
    values, indices = w.max(dim=1)
    assert not values.is_leaf and values.grad_fn is not None
    assert indices.is_leaf and indices.grad_fn is None


def test_an_everyday_operation_makes_a_weight_an_intermediate_on_the_home_page():
    """Sentence (home): 'A weight tensor scaled, or copied to another device with `tensor.to()`, after it
    was created, while autograd records, is an intermediate'. Before: 'A weight scaled, or moved to
    another device, ...', which `model.to()` breaks (a module's parameters stay leaves). Counter-cases:
    scaled under `no_grad()`, moved to the device it is on (both leaves), a module moved or cast."""
    assert_on_page(
        HOME,
        "A weight tensor scaled, or copied to another device with `tensor.to()`, after it was created, while "
        "autograd records, is an intermediate",
    )
    w = torch.ones(2, requires_grad=True)
    assert not (w * 0.5).is_leaf and not w.to("meta").is_leaf
    with torch.no_grad():
        assert (w * 0.5).is_leaf
    assert w.to("cpu").is_leaf
    for moved in (nn.Linear(2, 2).to("meta"), nn.Linear(2, 2).to(torch.float64)):
        assert moved.weight.is_leaf and moved.weight.grad_fn is None
