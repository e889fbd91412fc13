"""Probes of docs/cheat-sheet.md: each general sentence of the page, tried with the counter-case an expert
would try first. Each probe quotes its sentence (`said`); a probe fails when torch breaks the sentence, and
`test_every_probed_sentence_is_on_the_page` fails when the sentence changed, so its probe is looked at
again. The rows that only point to a rule (rules 4, 7, 11) are checked by snippets/rules/rules.py."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn

from tests.conftest import ROOT
from tests.probes._compile import Net
from tests.probes._sentence import sentence_marker

PAGE = ROOT / "docs" / "cheat-sheet.md"
SAID: dict[str, str] = {}


said = sentence_marker(SAID)  # marks a probe with the sentence of the page it tries


def test_every_probed_sentence_is_on_the_page():
    """Catches a sentence edited or dropped while its probe still tries the old words."""
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    missing = {name: sentence for name, sentence in SAID.items() if sentence not in text}
    assert not missing, missing


def test_every_row_links_to_an_example():
    """docs/cheat-sheet.md: 'Each row links to an executed example.' Catches a row without a link in its
    last column."""
    rows = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| ")][2:]
    assert rows
    assert all("](" in row.rstrip(" |").rsplit(" | ", 1)[1] for row in rows), rows


@said(
    "`p.requires_grad_(False)` on the others' parameters, and give the optimizer only those that still "
    "require grad (a frozen one's old `.grad` still moves it)"
)
def test_freezing_needs_the_optimizer_to_leave_the_frozen_out():
    """Counter-case: a parameter frozen after a step, whose .grad was zeroed, not set to None."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(16, 4)

    def frozen_moves(params) -> bool:
        opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
        model(x).pow(2).mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        for p in model[0].parameters():
            p.requires_grad_(False)
        before = model[0].weight.detach().clone()
        model(x).pow(2).mean().backward()
        opt.step()
        for p in model[0].parameters():
            p.requires_grad_(True)
        return not torch.equal(before, model[0].weight)

    assert frozen_moves(model.parameters())  # the optimizer holds it: momentum moves it
    trainable = [p for name, p in model.named_parameters() if not name.startswith("0.")]
    assert not frozen_moves(trainable)


@said("`torch.no_grad()` (`model.eval()` does not stop recording)")
def test_no_grad_records_nothing_and_eval_records():
    """Counter-cases: a model with dropout in eval() mode; a parameter's view taken under no_grad()."""
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    x = torch.randn(2, 3)
    with torch.no_grad():
        y = model(x)
        view = model[0].weight[:]
    assert y.grad_fn is None and not y.requires_grad
    assert view.grad_fn is None  # it says requires_grad=True, yet nothing was recorded
    model.eval()
    assert model(x).grad_fn is not None


@said("`y.backward(gradient=v)`, or reduce to a number first")
def test_a_non_scalar_backward_needs_a_gradient():
    """Counter-case: backward() with no gradient on a tensor of several numbers, and with one."""
    w = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (w * 2).backward()
    (w * 2).backward(gradient=torch.ones(3))
    by_gradient = w.grad.clone()
    w.grad = None
    (w * 2).sum().backward()
    assert torch.equal(w.grad, by_gradient)


@said(
    "create it with `requires_grad=True` (and the right `dtype`/`device`), or transform it under "
    "`torch.no_grad()`, then call `requires_grad_()`"
)
def test_a_weight_that_gets_its_grad():
    """Counter-cases: requires_grad_() after a recorded transform (the page's old advice), an integer
    dtype, and the transform done under no_grad()."""
    recorded = torch.randn(3, requires_grad=True).to(torch.float64).requires_grad_()
    assert not recorded.is_leaf  # requires_grad_() changed nothing: no .grad will come
    with pytest.raises(RuntimeError, match="floating point"):
        torch.zeros(3, dtype=torch.int64, requires_grad=True)
    source = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        w = source.to(torch.float64)
    w.requires_grad_()
    (w * 2).sum().backward()
    assert w.is_leaf and w.grad is not None and source.grad is None


@said(
    "a tensor of yours: do it under `torch.no_grad()`, then `requires_grad_()`; a module's parameter: change "
    "it in place under `torch.no_grad()` (`p.mul_(0.01)`), or move the whole model with `model.to(device)`"
)
def test_scaling_a_weight_keeps_it_a_weight():
    """Counter-case: a module's parameter scaled out of place (a new plain tensor, which the module and the
    optimizer do not hold); moving is tried with model.to(dtype), the one move a CPU-only machine has."""
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.no_grad():
        scaled = model.weight * 0.01
    assert not isinstance(scaled, nn.Parameter)
    with pytest.raises(TypeError):
        model.weight = scaled
    weight = model.weight
    with torch.no_grad():
        model.weight.mul_(0.01)
    assert model.weight is weight and weight.requires_grad and weight.is_leaf
    assert any(p is weight for group in opt.param_groups for p in group["params"])
    model.to(torch.float64)
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad
    mine = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        mine = mine * 0.01
    mine.requires_grad_()
    (mine * 2).sum().backward()
    assert mine.grad is not None


@said("`t.detach()` (shares memory; add `.clone()` for a copy)")
def test_detach_shares_and_clone_copies():
    """Counter-case: an in-place change through each."""
    w = torch.ones(3, requires_grad=True)
    w.detach().mul_(5)
    assert w[0].item() == 5
    w.detach().clone().mul_(7)
    assert w[0].item() == 5


@said("`t.grad_fn.name()`, `t.grad_fn.next_functions`")
def test_grad_fn_names_the_operation():
    """Counter-case: a leaf, which no operation made (its grad_fn is None)."""
    w = torch.randn(3, requires_grad=True)
    y = w * 2
    assert y.grad_fn.name() == "MulBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    assert w.grad_fn is None


@said("on the loss's path, its gradient is computed on the way, then dropped")
def test_an_intermediates_gradient_is_computed_then_dropped():
    """Counter-case: an intermediate off the loss's path (nothing is computed for it)."""
    w = torch.randn(3, requires_grad=True)
    on, off = w * 2, w * 3
    seen = []
    on.register_hook(lambda g: seen.append("on"))
    off.register_hook(lambda g: seen.append("off"))
    on.sum().backward()
    assert seen == ["on"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert on.grad is None


@said("`t.retain_grad()` before `backward()`")
def test_retain_grad_before_backward():
    """Counter-cases: retain_grad() called after backward(), and on a tensor that does not require grad."""
    w = torch.randn(3, requires_grad=True)
    late, early = w * 2, w * 3
    early.retain_grad()
    (late + early).sum().backward()
    late.retain_grad()
    assert early.grad is not None and late.grad is None
    with pytest.raises(RuntimeError, match="can't retain_grad"):
        torch.ones(3).retain_grad()


@said("`t.retains_grad`")
def test_retains_grad_tells_an_intermediate_apart():
    """Counter-case: a leaf, which keeps its gradient though retains_grad says False."""
    w = torch.randn(3, requires_grad=True)
    y = w * 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad
    w.retain_grad()
    assert not w.retains_grad


@said("`optimizer.zero_grad()`, `model.zero_grad()` or `t.grad = None`")
def test_each_way_of_zeroing_gives_one_pass_s_gradient():
    """Counter-case: zeroing with set_to_none=False (the gradient tensor is kept, filled with zeros)."""
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    model(x).sum().backward()
    one_pass = model.weight.grad.clone()
    for zero in (
        opt.zero_grad,
        lambda: opt.zero_grad(set_to_none=False),
        model.zero_grad,
        lambda: setattr(model.weight, "grad", None),
    ):
        model(x).sum().backward()
        zero()
        model(x).sum().backward()
        assert torch.equal(model.weight.grad, one_pass)


@said("`retain_graph=True` on every pass but the last")
def test_retain_graph_on_every_pass_but_the_last():
    """Counter-case: a third pass after a last one without it, through an operation that saves a tensor."""
    w = torch.randn(3, requires_grad=True)
    y = w.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


@said("`p.register_hook(fn)` on each parameter that requires grad (on a frozen one it raises)")
def test_a_hook_on_every_parameter():
    """Counter-cases: a frozen parameter, and one the loss does not use (its hook does not run)."""
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1), nn.Linear(3, 1))
    model[0].bias.requires_grad_(False)
    ran = []
    for name, p in model.named_parameters():
        if p.requires_grad:
            p.register_hook(lambda g, name=name: ran.append(name))
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        model[0].bias.register_hook(print)
    model[1](model[0](torch.randn(2, 3))).sum().backward()
    assert sorted(ran) == ["0.weight", "1.bias", "1.weight"]


@said("`t.register_hook(fn)`")
def test_a_hook_sees_an_intermediates_gradient_without_storing_it():
    """Counter-case: the .grad of the hooked intermediate afterwards."""
    w = torch.randn(3, requires_grad=True)
    y = w * 2
    seen = []
    y.register_hook(seen.append)
    (y * 3).sum().backward()
    assert torch.equal(seen[0], torch.full((3,), 3.0))
    assert not y.retains_grad


@said("a hook that returns a new tensor")
def test_a_hook_that_returns_a_tensor_changes_the_gradient():
    """Counter-case: the gradient of the leaf behind the hooked tensor."""
    w = torch.ones(3, requires_grad=True)
    y = w * 2
    y.register_hook(lambda g: g.clamp(max=1.0))
    (y * 5).sum().backward()
    assert torch.equal(w.grad, torch.full((3,), 2.0))


@said("`handle = t.register_hook(fn)`, then `handle.remove()`")
def test_a_removed_hook_does_not_run():
    """Counter-case: a removed hook in a later pass."""
    w = torch.ones(3, requires_grad=True)
    ran = []
    handle = w.register_hook(ran.append)
    (w * 2).sum().backward()
    handle.remove()
    (w * 2).sum().backward()
    assert len(ran) == 1


@said("to run code once a parameter's `.grad` holds this pass's gradient")
def test_a_post_accumulate_hook_sees_the_pass_s_sum():
    """Counter-case: a parameter used twice in one pass (the hook runs once, on the summed gradient)."""
    w = torch.ones(3, requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (w * 2 + w * 3).sum().backward()
    assert len(seen) == 1 and torch.equal(seen[0], torch.full((3,), 5.0))


@said("`torch.autograd.grad(out, [t])`")
def test_autograd_grad_returns_an_intermediates_gradient():
    """Counter-case: the .grad of the leaf behind it, which it leaves alone."""
    w = torch.ones(3, requires_grad=True)
    t = w * 2
    (g,) = torch.autograd.grad((t * 4).sum(), [t])
    assert torch.equal(g, torch.full((3,), 4.0)) and w.grad is None


@said("create it on the device, or scale under `torch.no_grad()`, then `requires_grad_()`")
def test_a_scaled_weight_gets_its_grad_when_scaled_under_no_grad():
    """Counter-case: the scaling recorded (the .grad stays None, with a warning)."""
    w = torch.randn(3, requires_grad=True) * 0.01
    (w * 2).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert w.grad is None
    assert caught
    with torch.no_grad():
        v = torch.randn(3) * 0.01
    v.requires_grad_()
    (v * 2).sum().backward()
    assert v.grad is not None


@said("| to update or initialise a weight by hand | do it under `torch.no_grad()` |")
def test_a_weight_is_changed_by_hand_under_no_grad():
    """Counter-case: the same change with grad mode on (it raises), and the weight after it (a leaf)."""
    w = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.mul_(2)
    with torch.no_grad():
        w.mul_(2)
    assert w.is_leaf and w.requires_grad


@said("`h = h.detach()` each step")
def test_a_hidden_state_is_detached_each_step():
    """Counter-case: the same loop without detach() (its second backward goes through the first step)."""
    cell = nn.RNNCell(2, 2)

    def train(detach: bool) -> None:
        h = torch.zeros(1, 2)
        for _ in range(2):
            h = cell(torch.randn(1, 2), h)
            h.sum().backward()
            if detach:
                h = h.detach()

    train(detach=True)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        train(detach=False)


@said("for a tensor that is not a view: a hook registered first, after the last in-place write to its memory")
def test_the_first_hook_sees_the_gradient_before_the_others():
    """Counter-cases: a hook registered before an in-place change of the tensor (it runs last), and one
    registered before a write through a view of it (also last). Before: 'record it from a hook registered
    first, after the tensor's last in-place change', which a view breaks (reader 4, L10; see
    test_faq_tensor_hooks.py: its cases are not run, torch 2.13.0 can crash on them)."""
    w = torch.ones(3, requires_grad=True)
    b = w * 1
    order = []
    b.register_hook(lambda g: order.append("before the change"))
    b.mul_(2)
    b.register_hook(lambda g: order.append("first after") or g * 10)
    b.register_hook(lambda g: order.append("second after"))
    b.sum().backward()
    assert order == ["first after", "second after", "before the change"]
    b, order = w * 1, []
    b.register_hook(lambda g: order.append("before the write"))
    b[1:].add_(1)
    b.register_hook(lambda g: order.append("first after"))
    b.sum().backward()
    assert order == ["first after", "before the write"]


@said(
    "a forward hook that calls `output.register_hook(fn)` when `output.requires_grad` (not under `no_grad()`), "
    "and returns `output.clone()` when `output` is a view (`nn.Linear` with a bias on a contiguous 3-D input "
    "returns one)"
)
def test_a_forward_hook_hooks_the_output_only_when_it_requires_grad():
    """Counter-cases: an evaluation pass under no_grad() with the hook registered; a 3-D input, whose
    `nn.Linear` output is a view, with and without the clone returned; the same layer without a bias, and
    a non-contiguous 3-D input, whose outputs are no views (the hook fires without the clone). Before:
    '(`nn.Linear` on a 3-D input returns one)', loose (reader 9, L5; /tmp/reader9/p8.py): not without a
    bias, nor on a non-contiguous input. Before that: without the clause on a view (reader 8, L4): there
    the hook never fires, and nothing says so."""
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 2))
    seen = []

    def unguarded(module, inputs, output):
        output.register_hook(seen.append)

    handle = model[0].register_forward_hook(unguarded)
    with torch.no_grad(), pytest.raises(RuntimeError, match="doesn't require gradient"):
        model(torch.randn(3, 4))
    handle.remove()

    def guarded(module, inputs, output, clone=True):
        if output.requires_grad:
            output.register_hook(seen.append)
            if clone and output._is_view():
                return output.clone()
        return None

    handle = model[0].register_forward_hook(guarded)
    with torch.no_grad():
        model(torch.randn(3, 4))
    model(torch.randn(3, 4)).sum().backward()
    assert len(seen) == 1 and seen[0].shape == (3, 8)
    model(torch.randn(2, 3, 4)).sum().backward()
    assert len(seen) == 2 and seen[1].shape == (2, 3, 8)
    handle.remove()
    x = torch.randn(2, 3, 4)
    assert nn.Linear(4, 8)(x)._is_view() and not nn.Linear(4, 8)(torch.randn(3, 4))._is_view()
    model[0].register_forward_hook(lambda *args: guarded(*args, clone=False))
    model(x).sum().backward()
    assert len(seen) == 2 and model[0].weight.grad is not None  # the hook never ran
    strided = torch.randn(3, 2, 4).transpose(0, 1)
    assert not nn.Linear(4, 8)(strided)._is_view() and not nn.Linear(4, 8, bias=False)(x)._is_view()
    model(strided).sum().backward()
    assert len(seen) == 3 and seen[2].shape == (2, 3, 8)  # not a view: the hook ran without the clone
    unbiased = nn.Sequential(nn.Linear(4, 8, bias=False), nn.ReLU(inplace=True), nn.Linear(8, 2))
    unbiased[0].register_forward_hook(lambda *args: guarded(*args, clone=False))
    unbiased(x).sum().backward()
    assert len(seen) == 4 and seen[3].shape == (2, 3, 8)


@said("`retain_grad()`, or read the leaf; a precise `warnings.filterwarnings` as a last resort")
def test_the_non_leaf_warning_is_silenced():
    """Counter-case: a filter for another message (the warning still shows)."""
    w = torch.randn(3, requires_grad=True)

    def warned(read, *filters) -> bool:
        y = w * 2
        read_from = y
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for message in filters:
                warnings.filterwarnings("ignore", message=message)
            if read == "retain":
                y.retain_grad()
            if read == "leaf":
                read_from = w
            _ = read_from.grad
        return bool(caught)

    assert warned("plain")
    assert not warned("retain") and not warned("leaf")
    assert not warned("plain", "The .grad attribute of a Tensor that is not a leaf")
    assert warned("plain", "some other message")


@said(
    "hooks on parameters and on the compiled model's output; for module hooks, and tensor hooks from forward "
    "hooks, `torch._dynamo.config.skip_nnmodule_hook_guards = False` before compiling"
)
def test_hooks_that_work_under_torch_compile(dynamo):
    """Before: 'register them before compiling', which faq/compile.md's part 4 breaks (reader 5, F4): a full
    backward hook on the submodule of a second instance, registered before compiling it, never fires.
    Counter-cases, backend "aot_eager" as on the FAQ: default guards, parameter hooks on a second instance
    and hooks registered after the first compiled call; guards off, module hooks (and a tensor hook from a
    forward hook) on a second instance's submodule and on a submodule after the first compiled call."""
    x = torch.randn(3, 4)
    first = Net()
    compiled = torch.compile(first, backend="aot_eager")
    compiled(x).sum().backward()
    fired = []
    first.l1.weight.register_hook(lambda g: fired.append("late parameter hook"))
    out = compiled(x)
    out.register_hook(lambda g: fired.append("output hook"))
    out.sum().backward()
    second = Net()
    second.l2.weight.register_hook(lambda g: fired.append("second's parameter hook"))
    second.l2.bias.register_post_accumulate_grad_hook(lambda p: fired.append("post-accumulate hook"))
    torch.compile(second, backend="aot_eager")(x).sum().backward()
    assert sorted(fired) == sorted(
        ["late parameter hook", "output hook", "second's parameter hook", "post-accumulate hook"]
    )
    torch.compiler.reset()
    dynamo.skip_nnmodule_hook_guards = False
    first = Net()
    compiled = torch.compile(first, backend="aot_eager")
    compiled(x).sum().backward()
    fired = []
    first.l2.register_forward_hook(lambda *args: fired.append("later forward hook"))
    first.l2.register_full_backward_hook(lambda *args: fired.append("later backward hook"))
    compiled(x).sum().backward()
    second = Net()

    def hook_the_output(module, inputs, output):
        output.register_hook(lambda g: fired.append("tensor hook"))

    second.l1.register_forward_hook(hook_the_output)
    second.l2.register_full_backward_hook(lambda *args: fired.append("second's backward hook"))
    torch.compile(second, backend="aot_eager")(x).sum().backward()
    assert sorted(fired) == sorted(
        ["later forward hook", "later backward hook", "tensor hook", "second's backward hook"]
    )
