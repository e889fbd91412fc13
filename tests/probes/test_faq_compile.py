"""Probes of the general sentences on docs/faq/compile.md. Compiling is slow, so these are few, with the
page's backend ("aot_eager"). Counter-cases: hooks registered after `torch.compile()` but before its first
call (the page says "before the first compiled call"), a hook removed while the hook guards are on."""

from __future__ import annotations

import pytest
import torch

from tests.probes._compile import Net
from tests.probes._sentence import assert_on_page

PAGE = "faq/compile.md"


def test_the_default_backend_is_inductor():
    """Sentence: 'the same graph capture (Dynamo) and the same forward/backward split (AOTAutograd) as the
    default backend, `"inductor"`'. Counter-case: torch.compile's signature says `backend=None`; what None
    stands for is torch._dynamo's default backend."""
    assert_on_page(PAGE, 'as the default backend, `"inductor"`')
    from torch._dynamo.backends.registry import get_default_backend

    assert get_default_backend() == "inductor"


def test_hooks_registered_before_the_first_compiled_call_fire(dynamo):
    """Sentence: 'Register module hooks before the first compiled call.' Counter-case: a forward and a full
    backward hook on a submodule registered after `torch.compile(net)` but before its first call (not
    before `torch.compile`): both fire, with the default hook guards."""
    assert_on_page(PAGE, "Register module hooks before the first compiled call.")
    assert dynamo.skip_nnmodule_hook_guards
    net = Net()
    compiled = torch.compile(net, backend="aot_eager")
    fired = []
    net.l2.register_forward_hook(lambda *args: fired.append("forward"))
    net.l2.register_full_backward_hook(lambda *args: fired.append("backward"))
    compiled(torch.randn(3, 4)).sum().backward()
    assert fired == ["forward", "backward"]


def test_with_hook_guards_a_removed_hook_no_longer_fires(dynamo):
    """Sentence: '`torch.compile` then checks the hooks and recompiles when they change.' Counter-case: the
    change is a removal (the page shows additions): after `handle.remove()`, the next compiled call does
    not run the hook."""
    assert_on_page(PAGE, "`torch.compile` then checks the hooks and recompiles when they change.")
    dynamo.skip_nnmodule_hook_guards = False
    net = Net()
    fired = []
    handle = net.l2.register_forward_hook(lambda *args: fired.append("hook"))
    compiled = torch.compile(net, backend="aot_eager")
    x = torch.randn(3, 4)
    compiled(x).sum().backward()
    handle.remove()
    compiled(x).sum().backward()
    assert fired == ["hook"]


class StoresAct(Net):
    def forward(self, x):
        h = self.l1(x).relu()
        self.act = h  # kept to read its gradient, as in the page's example
        return self.l2(h)


def test_a_stored_tensor_gets_only_the_gradient_of_its_uses_outside(dynamo):
    """Sentence: 'The stored tensor is an extra output of the compiled graph ..., while `l2` used the
    activation inside the graph; nothing downstream uses that extra output, so no gradient ever reaches
    it.' Counter-case: something downstream does use it (the loss adds `net.act.sum()`): a gradient
    reaches it then, but only that use's (all ones), not the gradient through `l2` that eager mode adds."""
    assert_on_page(PAGE, "nothing downstream uses that extra output, so no gradient ever reaches it")
    torch.manual_seed(0)
    net, x = StoresAct(), torch.randn(3, 4)
    out = torch.compile(net, backend="aot_eager")(x)
    net.act.retain_grad()
    (out.sum() + net.act.sum()).backward()
    assert torch.equal(net.act.grad, torch.ones(3, 8))
    h = net.l1(x).relu()
    h.retain_grad()
    (net.l2(h).sum() + h.sum()).backward()
    assert not torch.equal(h.grad, torch.ones(3, 8))


class RetainsAct(Net):
    def forward(self, x):
        h = self.l1(x).relu()
        h.retain_grad()  # inside the compiled forward, Grad-CAM style
        self.act = h
        return self.l2(h)


def test_retain_grad_called_after_the_compiled_call_on_a_stored_tensor_does_not_work(dynamo):
    """Sentence: 'while `retain_grad()` called after the compiled call on a tensor the forward stored, and
    module hooks added to a submodule after the first compiled call, do not work as they do without
    compiling'; the description's 'retain_grad on a tensor the compiled forward stored'. Before:
    '`retain_grad()` on a tensor inside it', loose (reader 10, L5): called inside the compiled forward,
    with the default settings, `retain_grad()` splits the graph there and the stored tensor's `.grad`
    equals eager mode's (/tmp/reader10/p19.py); with `fullgraph=True` the call raises `Unsupported`
    (/tmp/reader10/p15.py). Cases of the words: the page's part 2 (`retain_grad()` after the call: no
    `.grad`). Counter-cases: `retain_grad()` inside the forward, default settings and `fullgraph=True`."""
    import torch._dynamo

    assert_on_page(PAGE, "while `retain_grad()` called after the compiled call on a\ntensor the forward stored")
    assert_on_page(PAGE, "retain_grad on a tensor the compiled forward stored)")
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    after, inside, eager = StoresAct(), RetainsAct(), RetainsAct()
    inside.load_state_dict(after.state_dict())
    eager.load_state_dict(after.state_dict())
    torch.compile(after, backend="aot_eager")(x).sum().backward()
    after.act.retain_grad()
    assert after.act.grad is None
    eager(x).sum().backward()
    torch.compile(inside, backend="aot_eager")(x).sum().backward()
    assert inside.act.grad is not None and torch.allclose(inside.act.grad, eager.act.grad)
    torch.compiler.reset()  # else the graph-broken frames compiled above are reused
    full = RetainsAct()
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch.compile(full, backend="aot_eager", fullgraph=True)(x)


def test_after_the_first_call_only_the_submodules_new_hooks_are_skipped(dynamo):
    """Sentences: 'Module hooks (forward or backward) added to a submodule (here `net.l2`) after the first
    compiled call are ignored by later compiled calls'; the description's 'module hooks added to a
    submodule after the first compiled call'. Counter-case: hooks on `net` itself, added at the same
    time as one on `net.l2` (the words said "module hooks added after the first compiled call" before)."""
    import warnings

    assert_on_page(PAGE, "Module hooks (forward or backward) added to a submodule (here `net.l2`) after the first")
    assert_on_page(PAGE, "module hooks added to a submodule after the first compiled call, retain_grad")
    net = Net()
    compiled = torch.compile(net, backend="aot_eager")
    x = torch.randn(3, 4)
    compiled(x).sum().backward()
    fired = []
    net.register_forward_hook(lambda *a: fired.append("net forward"))
    net.register_full_backward_hook(lambda *a: fired.append("net backward"))
    net.l2.register_forward_hook(lambda *a: fired.append("l2 forward"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Full backward hook is firing ... no inputs require gradients"
        compiled(x).sum().backward()
    assert fired == ["net forward", "net backward"], fired


def test_a_second_instance_skips_its_submodules_hook(dynamo):
    """Sentence: 'the backward hook registered on its submodule `second.l2` *before* compiling it never
    fired'. Control: a hook on `second` itself fires in the same calls, so the compiled call did run
    hooks. (The words on that hook and on a first instance compiled with a hook on its `l2`, where
    `second.l2`'s hooks fire, were cut: no example on the page showed them.)"""
    assert_on_page(PAGE, "registered on its submodule `second.l2` *before* compiling it never fired")
    x = torch.randn(3, 4)
    torch.compile(Net(), backend="aot_eager")(x).sum().backward()
    second, fired = Net(), []
    second.register_forward_hook(lambda *a: fired.append("second forward"))
    second.l2.register_full_backward_hook(lambda *a: fired.append("second.l2 backward"))
    torch.compile(second, backend="aot_eager")(x).sum().backward()
    assert fired == ["second forward"], fired
