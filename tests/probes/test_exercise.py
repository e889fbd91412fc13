"""Probes of the general sentences on the exercise, docs/exercise/vanishing_gradients.py (a jupytext
notebook: its prose is in Markdown cells and in the folded answer's HTML). The numbers of the runs
themselves are checked by the notebook's own `check()` lines; these probes try what the prose says of
torch beyond those runs. Counter-cases: deeper networks and other activations for the hook order, a
layer whose pre-activations are exactly 0 (ReLU's derivative there), denormal and infinite inputs, float64,
PyTorch's default init at other fan-ins, a He-initialised network ten layers deep."""

from __future__ import annotations

import ast
import math
from collections import OrderedDict

import pytest
import torch
import torch.nn as nn

from tests.conftest import ROOT

NOTEBOOK = ROOT / "docs" / "exercise" / "vanishing_gradients.py"
ACTIVATIONS = {"ReLU": nn.ReLU, "Sigmoid": nn.Sigmoid, "Tanh": nn.Tanh, "GELU": nn.GELU}


def notebook_text() -> str:
    """The notebook as a reader reads it: comment markers of Markdown cells (and of code comments) dropped,
    line breaks and runs of spaces collapsed."""
    lines = []
    for line in NOTEBOOK.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        lines.append(stripped[1:] if stripped.startswith("#") else stripped)
    return " ".join(" ".join(lines).split())


def assert_on_page(sentence: str) -> None:
    words = " ".join(sentence.split())
    assert words in notebook_text(), f"the exercise no longer says {words!r}: try the new wording against torch"


def mlp(depth: int, activation, width: int = 8) -> nn.Sequential:
    """The page's make_mlp: `depth` Linear layers (4 inputs, 2 outputs), the activation after all but the last."""
    layers = OrderedDict()
    n_in = 4
    for i in range(1, depth):
        layers[f"linear{i}"] = nn.Linear(n_in, width)
        layers[f"act{i}"] = activation()
        n_in = width
    layers[f"linear{depth}"] = nn.Linear(n_in, 2)
    return nn.Sequential(layers)


def firing_order(model: nn.Module, x: torch.Tensor) -> list[str]:
    fired = []
    for name, p in model.named_parameters():
        p.register_hook(lambda grad, name=name: fired.append(name))
    model(x).pow(2).mean().backward()
    return fired


@pytest.mark.parametrize("depth", [3, 6, 10])
def test_the_hooks_fire_last_layer_first(depth):
    """Sentence: 'The hooks fire in backward order, last layer first.' Counter-cases: 6 and 10 layers, all
    four activations, several seeds (the page shows 3 layers, seed 0): the layer numbers in firing order
    never go up, and each parameter's hook fires once."""
    assert_on_page("**The hooks fire in backward order, last layer first.**")
    for act in ACTIVATIONS.values():
        for seed in range(3):
            torch.manual_seed(seed)
            model = mlp(depth, act)
            fired = firing_order(model, torch.randn(16, 4))
            layers = [int(name.split(".")[0].removeprefix("linear")) for name in fired]
            assert layers == sorted(layers, reverse=True) and layers[0] == depth and layers[-1] == 1
            assert sorted(fired) == sorted(n for n, _ in model.named_parameters())


def test_a_weights_gradient_is_the_output_gradient_times_the_input():
    """Sentence: 'The gradient of a weight is the gradient arriving at the layer's output times the layer's
    input'. Counter-case: a batch (the product sums over it: grad_out^T @ input) and a middle layer whose
    input is itself an intermediate."""
    assert_on_page(
        "The gradient of a weight is the gradient arriving at the layer's output times the layer's input"
    )
    torch.manual_seed(0)
    model = mlp(3, nn.Tanh)
    x = torch.randn(16, 4)
    seen = {}
    layer = model.linear2
    layer.register_forward_hook(lambda m, inputs, out: seen.update(input=inputs[0].detach()))
    layer.register_full_backward_hook(lambda m, g_in, g_out: seen.update(grad_out=g_out[0]))
    model(x).pow(2).mean().backward()
    torch.testing.assert_close(layer.weight.grad, seen["grad_out"].T @ seen["input"])


def test_relu_sets_every_negative_pre_activation_to_exactly_0():
    """Sentence: 'ReLU sets every negative pre-activation to exactly 0'. Counter-cases: the smallest
    denormal, -inf, float64."""
    assert_on_page("ReLU sets every negative pre-activation to exactly 0")
    for dtype in (torch.float32, torch.float64):
        tiny = torch.finfo(dtype).smallest_normal / 2**20
        z = torch.tensor([-tiny, -1e-30, -1.0, -1e30, -math.inf], dtype=dtype)
        assert (nn.ReLU()(z) == 0).all()


def _grads_of_weights(model, x):
    model(x).pow(2).mean().backward()
    return [m.weight.grad for m in model if isinstance(m, nn.Linear)]


@pytest.mark.parametrize("how", ["negative", "exactly zero"])
def test_a_dead_layer_passes_no_gradient(how):
    """Sentences: 'if every unit of some hidden layer outputs 0 for the whole batch, no gradient passes that
    layer and the weights before it get an exactly zero gradient. The ratio is then 0 (a hidden layer
    before the last is dead: the first layer's weight gets no gradient) or undefined, 0/0 (the last hidden
    layer is dead, so the last layer's weight gets none either).' Counter-case: pre-activations exactly 0
    rather than negative (ReLU's derivative at 0 is what decides), besides negative ones."""
    assert_on_page("no gradient passes that layer and the weights before it get an exactly zero gradient")
    assert_on_page("the last hidden layer is dead, so the last layer's weight gets none either")
    x = torch.randn(16, 4)
    for dead in (1, 3):  # a hidden layer before the last, then the last hidden layer (of 4 layers)
        torch.manual_seed(0)
        model = nn.Sequential(*(m for i in range(1, 4) for m in (nn.Linear(4 if i == 1 else 8, 8), nn.ReLU())))
        model.append(nn.Linear(8, 2))
        killed = model[2 * (dead - 1)]
        with torch.no_grad():
            if how == "negative":
                killed.bias.fill_(-100.0)
            else:
                killed.weight.zero_()
                killed.bias.zero_()
        grads = _grads_of_weights(model, x)
        assert all((g == 0).all() for g in grads[: dead + 1])  # up to the layer fed by the dead one
        first, last = grads[0].abs().mean(), grads[-1].abs().mean()
        if dead == 3:
            assert first == 0 and last == 0  # 0/0
        else:
            assert first == 0 and last > 0  # ratio 0


@pytest.mark.parametrize("act", list(ACTIVATIONS))
def test_each_hidden_layer_multiplies_by_the_derivative_and_the_weights(act):
    """Sentence: 'each hidden layer multiplies the gradient by the activation's derivative at that layer's
    pre-activations (and by the layer's weights)'. Counter-case: all four activations, checked at a middle
    layer with hooks on the tensors on each side of it."""
    assert_on_page("each hidden layer multiplies the gradient by the activation's derivative at that layer's")
    torch.manual_seed(0)
    linear, activation = nn.Linear(8, 8), ACTIVATIONS[act]()
    h_in = torch.randn(16, 8, requires_grad=True)
    z = linear(h_in)
    z.retain_grad()
    h_out = activation(z)
    h_out.retain_grad()
    h_out.pow(2).sum().backward()
    zz = z.detach().requires_grad_()
    (derivative,) = torch.autograd.grad(activation(zz).sum(), zz)
    torch.testing.assert_close(z.grad, derivative * h_out.grad)
    torch.testing.assert_close(h_in.grad, z.grad @ linear.weight)


def _analytic(act: str, z: torch.Tensor) -> torch.Tensor:
    if act == "ReLU":
        return (z > 0).to(z.dtype)
    if act == "Sigmoid":
        s = torch.sigmoid(z)
        return s * (1 - s)
    if act == "Tanh":
        return 1 - torch.tanh(z) ** 2
    return 0.5 * (1 + torch.erf(z / math.sqrt(2))) + z * torch.exp(-(z**2) / 2) / math.sqrt(2 * math.pi)


@pytest.mark.parametrize("act", list(ACTIVATIONS))
def test_act_sum_backward_leaves_the_derivative_in_z_grad(act):
    """Sentence: '`act(z).sum().backward()` leaves act'(z) in `z.grad`'. Counter-case: the derivative
    written out by hand (not by autograd), in float64, on a grid that includes z = 0."""
    assert_on_page("`act(z).sum().backward()` leaves act'(z) in `z.grad`")
    z = torch.linspace(-6, 6, 121, dtype=torch.float64, requires_grad=True)
    ACTIVATIONS[act]()(z).sum().backward()
    torch.testing.assert_close(z.grad, _analytic(act, z.detach()))


def test_sigmoids_derivative_is_at_most_a_quarter():
    """Sentence: 'Sigmoid's derivative σ(z)(1 − σ(z)) is at most 0.25, its value at z = 0, so every Sigmoid
    layer scales the gradient down by a factor of at least 4 (before the weights)'. Counter-cases: a dense
    grid and far tails, float32 and float64, and float32 z near 0 but not 0 (1e-4, 3e-4), where the
    derivative autograd computes is exactly 0.25 too: the words said "and is smaller everywhere else"
    before."""
    assert_on_page("Sigmoid's derivative σ(z)(1 − σ(z)) is at most 0.25, its value at z = 0")
    near = torch.tensor([1e-4, 3e-4], requires_grad=True)
    torch.sigmoid(near).sum().backward()
    assert near.grad.tolist() == [0.25, 0.25]
    assert_on_page("every Sigmoid layer scales the gradient down by a factor of at least 4 (before the weights)")
    for dtype in (torch.float32, torch.float64):
        z = torch.cat([torch.linspace(-50, 50, 200_001, dtype=dtype), torch.tensor([0.0, 1e-30], dtype=dtype)])
        z.requires_grad_()
        torch.sigmoid(z).sum().backward()
        assert z.grad.max() <= 0.25 and z.grad[-2] == 0.25


def test_relus_derivative_is_1_for_every_positive_input():
    """Sentence: 'ReLU's derivative is exactly 1 for every positive input (and 0 for negative ones)'.
    Counter-cases: the smallest denormal, +inf, float64."""
    assert_on_page("ReLU's derivative is exactly 1 for every positive input (and 0 for negative ones)")
    for dtype in (torch.float32, torch.float64):
        tiny = torch.finfo(dtype).smallest_normal / 2**20
        z = torch.tensor([tiny, 1e-30, 1.0, 1e30, math.inf, -tiny, -1.0, -math.inf], dtype=dtype, requires_grad=True)
        nn.ReLU()(z).sum().backward()
        assert z.grad.tolist() == [1.0] * 5 + [0.0] * 3


def test_tanh_peaks_at_1_and_gelu_slightly_above():
    """Sentence: 'Tanh's peaks at 1 and GELU's slightly above 1'. Counter-case: a fine float64 grid beyond
    the page's [-6, 6] with 61 points, where GELU's peak (near z = 1.41) could fall between points."""
    assert_on_page("Tanh's peaks at 1 and GELU's slightly above 1")
    z = torch.linspace(-20, 20, 400_001, dtype=torch.float64, requires_grad=True)
    nn.Tanh()(z).sum().backward()
    assert z.grad.max() == 1.0
    z.grad = None
    nn.GELU()(z).sum().backward()
    assert 1.0 < z.grad.max() < 1.2


def test_building_a_model_draws_the_same_weights_whatever_the_activation():
    """Sentence: 'Seeding before building the model gives the same weights and the same batch for every
    activation, so the runs differ only in the activation.' Counter-case: 10 layers (nine activation
    objects made between the Linear layers), all four activations: constructing one draws no random
    number."""
    assert_on_page("Seeding before building the model gives the same weights and the same batch for every activation")
    built = {}
    for name, act in ACTIVATIONS.items():
        torch.manual_seed(0)
        model = mlp(10, act)
        built[name] = ([p.detach().clone() for p in model.parameters()], torch.randn(16, 4))
    (weights, batch), *others = built.values()
    for other_weights, other_batch in others:
        assert torch.equal(batch, other_batch)
        assert all(torch.equal(a, b) for a, b in zip(weights, other_weights, strict=True))


@pytest.mark.parametrize("fan_in", [1, 8, 1000])
def test_the_default_linear_init_is_below_he(fan_in):
    """Sentence: 'PyTorch's default `Linear` init draws smaller weights (the `var(weight) * fan_in` line)
    than the 2/fan_in that keeps a ReLU signal's size from layer to layer.' Counter-case: other fan-ins than
    the page's 1000 (the bound is 1/sqrt(fan_in), so var * fan_in is 1/3 whatever fan_in)."""
    assert_on_page("<code>Linear</code> init draws smaller weights")
    torch.manual_seed(0)
    weight = nn.Linear(fan_in, 20_000).weight.detach()
    assert weight.abs().max() <= 1 / math.sqrt(fan_in)
    assert 0.3 < weight.var().item() * fan_in < 0.37 < 2


def test_he_init_keeps_a_relu_signals_size():
    """Sentence: 'the 2/fan_in that keeps a ReLU signal's size from layer to layer' (He init). Counter-case:
    ten wide ReLU layers, He init against the default init: He keeps the mean square of the signal within a
    factor 2 from the first layer to the tenth; the default one loses over 1000-fold."""
    assert_on_page("the 2/fan_in that keeps a ReLU signal's size from layer to layer")

    def mean_squares(init):
        torch.manual_seed(0)
        h = torch.randn(512, 500)
        sizes = []
        for _ in range(10):
            linear = nn.Linear(500, 500)
            nn.init.zeros_(linear.bias)
            if init == "he":
                nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")
            with torch.no_grad():
                h = torch.relu(linear(h))
            sizes.append(h.pow(2).mean().item())
        return sizes

    he, default = mean_squares("he"), mean_squares("default")
    assert 0.5 < he[-1] / he[0] < 2
    assert default[-1] / default[0] < 1e-3


def test_batchnorm_in_training_recentres_and_rescales_over_the_batch():
    """Sentence: 'BatchNorm re-centres and re-scales each layer's pre-activations over the batch, so Sigmoid
    works near z = 0'. Counter-case: pre-activations far from 0 (mean 5, spread 10), in training mode as in
    the exercise (eval mode: test_batchnorm_normalises_over_the_batch_only_in_training_mode)."""
    assert_on_page("re-centres and re-scales each layer's pre-activations over the batch")
    bn = nn.BatchNorm1d(8)
    z = 5 + 10 * torch.randn(16, 8)
    out = bn(z)
    torch.testing.assert_close(out.mean(0), torch.zeros(8), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.var(0, unbiased=False), torch.ones(8), atol=1e-3, rtol=0)


def test_the_identity_path_carries_the_gradient_unchanged():
    """Sentence (the Residual class's docstring): 'x + f(x): the identity path carries the gradient past f
    unchanged.' Counter-case: an f that kills its gradient (a dead ReLU layer): x still gets the gradient
    arriving at the block's output, unchanged."""
    assert_on_page("x + f(x): the identity path carries the gradient past f unchanged.")
    f = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    with torch.no_grad():
        f[0].bias.fill_(-100.0)
    x = torch.randn(16, 8, requires_grad=True)
    g = torch.randn(16, 8)
    (x + f(x)).backward(g)
    assert torch.equal(x.grad, g)


def test_the_notebook_imports_only_what_the_page_names():
    """Sentence: 'It needs `torch`, `numpy`, `matplotlib` and `ipython`.' Counter-case: every import of the
    notebook, outside the standard library."""
    assert_on_page("It needs `torch`, `numpy`, `matplotlib` and `ipython`.")
    tree = ast.parse(NOTEBOOK.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    import sys

    outside = {name for name in imported if name not in sys.stdlib_module_names}
    assert outside == {"torch", "numpy", "matplotlib", "IPython"}


def test_sigmoid_outputs_are_around_a_half_here_not_in_general():
    """Sentence: 'here Sigmoid's outputs are all positive, around 0.5, while ReLU sets every negative
    pre-activation to exactly 0 (the `input to linear3` lines)'. Counter-case: float32 inputs far from 0,
    where Sigmoid gives exactly 0 and 1 (the words said "Sigmoid outputs are all positive, around 0.5",
    of any Sigmoid, before); a network built as the page builds it keeps them near 0.5."""
    assert_on_page("here Sigmoid's outputs are all positive, around 0.5, while ReLU sets every negative")
    assert torch.sigmoid(torch.tensor([-104.0, 17.0])).tolist() == [0.0, 1.0]
    torch.manual_seed(0)
    net = mlp(3, nn.Sigmoid)
    last = net[:-1](torch.randn(64, 4))  # the input of linear3
    assert (last > 0).all() and 0.3 < last.mean() < 0.7


def test_batchnorm_normalises_over_the_batch_only_in_training_mode():
    """Sentence: 'In training mode, as here, BatchNorm re-centres and re-scales each layer's
    pre-activations over the batch'. Counter-case: eval mode, where a fresh BatchNorm1d uses its running
    statistics (mean 0, variance 1) and pre-activations of mean 5 stay near 5 (the words had no "in
    training mode" before); the page's model is never put in eval mode."""
    assert_on_page("In training mode, as here, <strong>BatchNorm</strong> re-centres and re-scales each")
    torch.manual_seed(0)
    z = 5 + 10 * torch.randn(16, 8)
    evaluated = nn.BatchNorm1d(8).eval()(z)
    assert torch.allclose(evaluated, z / (1 + 1e-5) ** 0.5)
    assert ".eval()" not in NOTEBOOK.read_text(encoding="utf-8")


def test_the_middle_of_the_linspace_is_just_below_0():
    """Comment: '# the z nearest 0 (linspace's middle value is -9e-08, not 0)'. Counter-case: print it (the
    comment said "9e-08" before, the wrong sign)."""
    assert_on_page("the z nearest 0 (linspace's middle value is -9e-08, not 0)")
    middle = torch.linspace(-6, 6, 61)[30].item()
    assert f"{middle:.0e}" == "-9e-08"
