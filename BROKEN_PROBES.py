"""Probes of sentences that torch 2.13.0 breaks (h4-reader). Not collected by pytest (no test_ prefix).

Each probe asserts what torch really does, which is what the proposed replacement says; today they all
pass, which is the evidence that the current sentence is false or loose. Each also checks that the
current sentence is still on its page (`on_page`), so once the sentence is replaced, move the probe into
tests/probes/test_<page>.py, quote the new words instead, and rename it `test_...`.

Run: .venv/bin/python BROKEN_PROBES.py   (about 10 s: three small torch.compile runs)
"""

from __future__ import annotations

import sys
import warnings

import torch
import torch.nn as nn

from tests.probes._sentence import prose
from tests.probes.test_exercise import notebook_text


def on_page(page: str, words: str) -> bool:
    # prose() reads the whole file, front matter (a page's description) included
    text = notebook_text() if page == "exercise/vanishing_gradients.py" else prose(page)
    return " ".join(words.split()) in text


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.l2(self.l1(x).relu())


def _fresh():
    torch.compiler.reset()
    torch._dynamo.config.skip_nnmodule_hook_guards = True


# ---------------------------------------------------------------------------------------------- compile


def probe_hooks_on_the_compiled_module_itself_run_when_added_later():
    """faq/compile.md, item 3. Sentence: 'Module hooks (forward or backward) added after the first compiled
    call are ignored by later compiled calls'. Counter-case: the hooks registered on the compiled module
    itself (`net`, the module given to torch.compile), not on a submodule (`net.l2`, the page's example).
    torch: both fire in the next compiled call: ['top forward', 'top backward'].
    Proposed: 'Module hooks (forward or backward) added to a submodule (here `net.l2`) after the first
    compiled call are ignored by later compiled calls (`compiled call: []`), though an eager call runs them
    (...). Hooks added to the compiled module itself did run in later compiled calls when we tried.'"""
    assert on_page("faq/compile.md", "Module hooks (forward or backward) added after the first compiled call are")
    _fresh()
    net = Net()
    compiled = torch.compile(net, backend="aot_eager")
    x = torch.randn(3, 4)
    compiled(x).sum().backward()
    fired = []
    net.register_forward_hook(lambda *a: fired.append("top forward"))
    net.register_full_backward_hook(lambda *a: fired.append("top backward"))
    net.l2.register_forward_hook(lambda *a: fired.append("l2 forward"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Full backward hook is firing ... no inputs require gradients"
        compiled(x).sum().backward()
    assert fired == ["top forward", "top backward"], fired


def probe_a_second_instance_runs_some_hooks():
    """faq/compile.md, item 4. Sentence: 'The same goes for a second instance of a class already compiled:
    the backward hook registered on `second` *before* compiling it never fired'. Counter-cases: (a) the
    hook on `second` itself rather than on `second.l2`: it fires; (b) the first instance was compiled with
    a hook on its `l2`: then the hooks on `second.l2` fire too.
    torch: (a) ['second forward'], (b) ['second.l2 forward', 'second.l2 backward'].
    Proposed: 'The same went for a second instance of the class, compiled after the first: the backward hook
    registered on its submodule `second.l2` *before* compiling it never fired, and it fires once hooks are
    checked (6). (A hook on `second` itself did fire, and so did hooks on `second.l2` when the first
    instance had been compiled with a hook on its own `l2`.)'"""
    assert on_page("faq/compile.md", "The same goes for a second instance of a class already compiled")
    x = torch.randn(3, 4)
    _fresh()
    torch.compile(Net(), backend="aot_eager")(x).sum().backward()
    second, fired = Net(), []
    second.register_forward_hook(lambda *a: fired.append("second forward"))
    torch.compile(second, backend="aot_eager")(x).sum().backward()
    assert fired == ["second forward"], fired
    _fresh()
    first = Net()
    first.l2.register_forward_hook(lambda *a: None)
    torch.compile(first, backend="aot_eager")(x).sum().backward()
    second, fired = Net(), []
    second.l2.register_forward_hook(lambda *a: fired.append("second.l2 forward"))
    second.l2.register_full_backward_hook(lambda *a: fired.append("second.l2 backward"))
    torch.compile(second, backend="aot_eager")(x).sum().backward()
    assert fired == ["second.l2 forward", "second.l2 backward"], fired


def probe_retain_grad_then_hook_agrees_with_eager():
    """faq/compile.md, item 5. Sentence: 'Inside compiled code, a hook that changes a gradient and
    `retain_grad()` on the same tensor disagree with eager mode.' Counter-case: the other order,
    `retain_grad()` first, then the hook. torch: compiled h.grad = tensor([1., 1., 1., 1.]), as eager.
    Proposed: 'Inside compiled code, a hook that changes a gradient, registered before `retain_grad()` on
    the same tensor, disagrees with eager mode. ... (Registered in the other order, retain_grad() first,
    compiled and eager stored the same, hooked, gradient.)'"""
    assert on_page("faq/compile.md", "a hook that changes a gradient and `retain_grad()` on the same tensor disagree")
    _fresh()

    def f(x, w):
        h = x * w
        h.retain_grad()
        h.register_hook(lambda grad: torch.ones_like(grad))
        return h.sin().sum(), h

    x = torch.randn(4)
    grads = []
    for fn in (f, torch.compile(f, backend="aot_eager")):
        w = torch.ones(4, requires_grad=True)
        loss, h = fn(x, w)
        loss.backward()
        grads.append(h.grad)
    assert torch.equal(grads[0], torch.ones(4)) and torch.equal(grads[1], torch.ones(4)), grads


def probe_hooks_added_after_torch_compile_before_its_first_call_run():
    """faq/compile.md, the page's description (front matter, shown to search engines): 'What works, what is
    silently ignored (hooks added after compiling, retain_grad on tensors inside the compiled graph)'.
    Counter-cases: module hooks added after `torch.compile()` but before the first call fire; the tensor
    hook the page itself adds to the compiled model's output after compiling fires (part 1).
    torch: ['l2 forward', 'l2 backward'] and the output hook fired.
    Proposed: '... what is silently ignored (module hooks added after the first compiled call, retain_grad
    on tensors inside the compiled graph) ...'."""
    assert on_page("faq/compile.md", "what is silently ignored (hooks added after compiling,")
    _fresh()
    net = Net()
    compiled = torch.compile(net, backend="aot_eager")
    fired = []
    net.l2.register_forward_hook(lambda *a: fired.append("l2 forward"))
    net.l2.register_full_backward_hook(lambda *a: fired.append("l2 backward"))
    out = compiled(torch.randn(3, 4))
    out.register_hook(lambda grad: fired.append("output hook"))
    out.sum().backward()
    assert sorted(fired) == ["l2 backward", "l2 forward", "output hook"], fired


# ---------------------------------------------------------------------------------------------- home, FAQ index


# ---------------------------------------------------------------------------------------------- exercise


def probe_sigmoid_outputs_can_be_exactly_0_or_1():
    """exercise, 'What to read in it'. Sentence: 'Sigmoid outputs are all positive, around 0.5'.
    Counter-case: float32 inputs far from 0. torch: sigmoid(-104.) = 0.0, sigmoid(17.) = 1.0; 'around 0.5'
    holds for this network's inputs to linear3 (mean 0.479), not for Sigmoid outputs in general.
    Proposed: 'here Sigmoid's outputs are all positive, around 0.5 (the `input to linear3` lines), while
    ReLU sets every negative pre-activation to exactly 0'."""
    assert on_page("exercise/vanishing_gradients.py", "Sigmoid outputs are all positive, around 0.5")
    out = torch.sigmoid(torch.tensor([-104.0, 17.0]))
    assert out.tolist() == [0.0, 1.0]


def probe_sigmoids_derivative_is_a_quarter_near_0_in_float32():
    """exercise, 'Why Sigmoid'. Sentence: 'Sigmoid's derivative σ(z)(1 − σ(z)) peaks at 0.25, at z = 0, and
    is smaller everywhere else'. Counter-case: float32 z near 0 but not 0. torch: the derivative autograd
    computes is exactly 0.25 for |z| up to about 3.4e-4 (1e-4: 0.25; 1e-3: 0.24999994). True of the formula
    in exact arithmetic, not of what the page's autograd computes.
    Proposed: 'Sigmoid's derivative σ(z)(1 − σ(z)) is at most 0.25, its value at z = 0, so every Sigmoid
    layer scales the gradient down by a factor of at least 4 (before the weights)'."""
    assert on_page("exercise/vanishing_gradients.py", "peaks at 0.25, at z = 0, and is smaller everywhere else")
    z = torch.tensor([1e-4, 3e-4, 1e-3], requires_grad=True)
    torch.sigmoid(z).sum().backward()
    assert z.grad.tolist()[:2] == [0.25, 0.25] and z.grad[2] < 0.25


def probe_batchnorm_in_eval_mode_does_not_use_the_batch():
    """exercise, the folded answer. Sentence: 'BatchNorm re-centres and re-scales each layer's
    pre-activations over the batch'. Counter-case: eval mode (a fresh BatchNorm1d in eval() uses its
    running statistics, mean 0 and variance 1): pre-activations of mean 5 stay at mean about 5.
    Proposed: 'In training mode, as here, BatchNorm re-centres and re-scales each layer's pre-activations
    over the batch, ...'."""
    assert on_page("exercise/vanishing_gradients.py", "re-centres and re-scales each layer's pre-activations over")
    torch.manual_seed(0)
    z = 5 + 10 * torch.randn(16, 8)
    out = nn.BatchNorm1d(8).eval()(z)
    assert torch.allclose(out, z / (1 + 1e-5) ** 0.5)
    assert out.mean() > 3


def probe_linspace_midpoint_is_negative():
    """exercise, a code comment in the folded check: 'at_0 = z.detach().abs().argmin()  # the z nearest 0
    (linspace's is 9e-08)'. Counter-case: print it. torch: torch.linspace(-6, 6, 61)[30] is
    -8.940696716308594e-08, negative. Proposed: '# the z nearest 0 (linspace's is -9e-08, not 0)'."""
    assert on_page("exercise/vanishing_gradients.py", "the z nearest 0 (linspace's is 9e-08)")
    mid = torch.linspace(-6, 6, 61)[30].item()
    assert -9e-08 < mid < -8.9e-08


# ---------------------------------------------------------------------------------------------- versions


PROBES = [value for name, value in dict(globals()).items() if name.startswith("probe_")]

if __name__ == "__main__":
    failed = 0
    for probe in PROBES:
        try:
            probe()
        except AssertionError as error:
            failed += 1
            print(f"FAILED {probe.__name__}: {error}")
        else:
            print(f"torch breaks the sentence: {probe.__name__}")
    sys.exit(1 if failed else 0)
