# ---
# jupyter:
#   description: 'An executed exercise: hooks record each layer''s gradient in a small MLP, and
#     Sigmoid''s gradients vanish toward the first layer, checked over 20 seeds and three depths.'
#   jupytext:
#     formats: py:percent
#     notebook_metadata_filter: description
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Exercise: vanishing gradients
#
# > Build a 3-layer MLP. Attach a `register_hook` to each parameter that records the gradient mean
# > and std. Train for one batch on random data. Print the stats. Then change the activation from
# > ReLU to Sigmoid and rerun — observe the gradient magnitudes shrink toward zero in earlier layers
# > (vanishing gradients).
#
# Try it before reading on; the [`register_hook` page](../../register-hook/) shows the hook part.
# Below is a worked solution. This page is a notebook, executed by the site's build: every number
# and plot on it was printed by that run. The code that checks what the text says, and the plots'
# styling, is folded; open a fold to read it. Download the notebook and run it yourself, top to
# bottom: <a href="vanishing_gradients.ipynb" download>vanishing_gradients.ipynb</a> (Jupyter) or
# <a href="vanishing_gradients.py" download>vanishing_gradients.py</a> (the same notebook as a
# [jupytext](https://jupytext.readthedocs.io) percent script). It needs `torch`, `numpy`,
# `matplotlib` and `ipython`.
#
# ## The experiment: a model, a hook per parameter, one batch
#
# Three `Linear` layers, 4 inputs, 8 hidden units, 2 outputs, an activation after each hidden layer.
# One hook per parameter records the mean of the absolute gradient, `mean|g|`, and the standard
# deviation of the gradient, `std(g)`. Seeding before building the model gives the same weights and
# the same batch for every activation, so the runs differ only in the activation.

# %%
from collections import OrderedDict

import torch
import torch.nn as nn

torch.set_num_threads(1)  # tiny networks: one thread is fastest, runs repeat

D_IN, WIDTH, D_OUT, BATCH = 4, 8, 2, 16


def make_mlp(depth, activation):
    """`depth` Linear layers, with `activation()` after each but the last."""
    layers = OrderedDict()
    n_in = D_IN
    for i in range(1, depth):
        layers[f"linear{i}"] = nn.Linear(n_in, WIDTH)
        layers[f"act{i}"] = activation()
        n_in = WIDTH
    layers[f"linear{depth}"] = nn.Linear(n_in, D_OUT)
    return nn.Sequential(layers)


def attach_stat_hooks(model):
    """One hook per parameter, storing (mean|g|, std(g)) in firing order."""
    stats = {}

    def make_hook(name):
        def hook(grad):
            stats[name] = (grad.abs().mean().item(), grad.std().item())

        return hook

    for name, parameter in model.named_parameters():
        parameter.register_hook(make_hook(name))
    return stats


def one_batch(depth, activation, seed, build=make_mlp):
    """Train build(depth, activation) on one random batch: its stats."""
    torch.manual_seed(seed)
    model = build(depth, activation)
    x, y = torch.randn(BATCH, D_IN), torch.randn(BATCH, D_OUT)
    stats = attach_stat_hooks(model)
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()  # the hooks fire here
    with torch.no_grad():  # one step of plain SGD, learning rate 0.1
        for parameter in model.parameters():
            parameter -= 0.1 * parameter.grad
    return stats, model, x


def weight_grad_means(stats, model):
    """mean|g| of each Linear layer's weight, from the first to the last."""
    return [stats[f"{name}.weight"][0]
            for name, m in model.named_modules() if isinstance(m, nn.Linear)]


# %% tags=["fold"]
# The page's helpers: check() and the plots' style
import io

import matplotlib.pyplot as plt
import numpy as np
from IPython import get_ipython
from IPython.display import SVG, display
from matplotlib.ticker import LogLocator


def check(claim, holds, report=print):
    """Report a claim the page makes; stop if the numbers don't support
    it."""
    if not holds:
        raise AssertionError(f"The page claims: {claim}. It does not hold.")
    report(f"holds: {claim}")


GREY = "#808080"  # readable on a light and on a dark background
STYLE = {  # colour, marker, line style: distinguishable without colour too
    "ReLU": ("#2F7FC1", "o", "-"),
    "Sigmoid": ("#D55E00", "s", "--"),
    "Tanh": ("#1F8A70", "^", "-."),
    "GELU": ("#A05195", "D", ":"),
}
plt.rcParams.update({
    "figure.facecolor": "none", "axes.facecolor": "none",
    "savefig.transparent": True, "axes.edgecolor": GREY,
    "axes.labelcolor": GREY, "text.color": GREY, "xtick.color": GREY,
    "ytick.color": GREY, "grid.color": GREY, "grid.alpha": 0.3,
    "axes.spines.top": False, "axes.spines.right": False,
    "legend.frameon": False, "font.size": 9, "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "svg.fonttype": "none",  # text stays text
    "svg.hashsalt": "vanishing",  # the same SVG on every run
})


def show(fig, description):
    """Display `fig` as SVG, `description` being its text alternative.
    Run as a plain script (no IPython), save it as figure-N.svg instead."""
    svg = io.StringIO()
    fig.savefig(svg, format="svg", bbox_inches="tight",
                metadata={"Title": description, "Date": None})
    plt.close(fig)
    if get_ipython() is not None:
        display(SVG(svg.getvalue()))
        return
    show.saved = getattr(show, "saved", 0) + 1
    name = f"figure-{show.saved}.svg"
    with open(name, "w", encoding="utf-8") as file:
        file.write(svg.getvalue())
    print(f"[{name} saved: {description}]")


def positive(values, what):
    """For a log axis: exact zeros become NaN (not drawn), and are
    reported."""
    values = np.asarray(values, dtype=float)
    if (values == 0).any():
        print(f"not drawn on the log axis, exactly 0: {what}, layer(s)",
              list(np.flatnonzero(values == 0) + 1))
    return np.where(values > 0, values, np.nan)


def plot_layers(ax, means, depth, activations, markers=True):
    """Median mean|g| per layer over the seeds, and the interquartile
    band."""
    for act in activations:
        colour, marker, line = STYLE[act]
        q1, mid, q3 = np.percentile(means[depth, act], [25, 50, 75], axis=0)
        layers = np.arange(1, depth + 1)
        what = f"{act}, depth {depth}"
        ax.fill_between(layers, positive(q1, f"{what}, 25th percentile"),
                        positive(q3, f"{what}, 75th percentile"),
                        color=colour, alpha=0.2, lw=0)
        ax.plot(layers, positive(mid, f"{what}, median"), color=colour,
                marker=marker if markers else None, ls=line, ms=4, label=act)
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.yaxis.set_major_locator(LogLocator(numticks=6))
    ax.yaxis.set_major_formatter("{x:g}")
    ax.tick_params(axis="y", length=0)  # the grid lines mark the levels
    ax.set_xticks(range(1, depth + 1))
    ax.set_xlabel("layer (1 = first)")
    ax.grid(True, axis="y")


# %% [markdown]
# ## ReLU and Sigmoid, one seed
#
# The same seed, so the same weights and the same batch; only the activation changes. A table per
# activation lists the parameters in the order their hooks fired.

# %%
relu_stats, relu_model, x = one_batch(3, nn.ReLU, seed=0)
sigmoid_stats, sigmoid_model, sigmoid_x = one_batch(3, nn.Sigmoid, seed=0)

for act, stats in (("ReLU", relu_stats), ("Sigmoid", sigmoid_stats)):
    print(f"{act:<18}mean|g|   std(g)")
    for order, (name, (mean, std)) in enumerate(stats.items(), 1):
        print(f"{order} {name:<14}{mean:>9.5f}{std:>9.5f}")
print("Sigmoid's hooks fired in the same order:",
      list(sigmoid_stats) == list(relu_stats))

relu_means = weight_grad_means(relu_stats, relu_model)
sigmoid_means = weight_grad_means(sigmoid_stats, sigmoid_model)
relu_ratio = relu_means[0] / relu_means[-1]
sigmoid_ratio = sigmoid_means[0] / sigmoid_means[-1]
print()
print("mean|g| of linear3.weight, Sigmoid / ReLU:",
      f"{sigmoid_means[-1] / relu_means[-1]:.2f}")
print("mean|g| of linear1.weight, Sigmoid / ReLU:",
      f"{sigmoid_means[0] / relu_means[0]:.4f}")
print("first / last layer, linear1.weight / linear3.weight:",
      f"ReLU {relu_ratio:.3f}, Sigmoid {sigmoid_ratio:.4f}")
hidden = {}  # what linear3 received: the last activation's output
with torch.no_grad():
    for act, cls in (("ReLU", nn.ReLU), ("Sigmoid", nn.Sigmoid)):
        torch.manual_seed(0)  # the weights one_batch built, before its step
        hidden[act] = make_mlp(3, cls)[:-1](x)
        print(f"input to linear3, {act:<7}: mean {hidden[act].mean():.3f},",
              f"{(hidden[act] == 0).float().mean():.0%} exact zeros")

# %% [markdown]
# What to read in it:
#
# - **The hooks fire in backward order, last layer first.** Numbered in firing order, each table
#   starts with `linear3` and ends with `linear1`: a parameter's hook fires when the backward pass
#   reaches that parameter, and the backward pass starts at the loss. Print in firing order and the
#   table reads upside down compared with the model.
# - **With Sigmoid the first layer's gradient is far smaller**: see the `linear1.weight, Sigmoid /
#   ReLU` line. That is the vanishing gradient.
# - **But the last layer's gradient is *larger* with Sigmoid** (the `linear3.weight` line), which
#   surprises many people. The gradient of a weight is the gradient arriving at the layer's output
#   times the layer's input, and the input of `linear3` is the last activation's output: here
#   Sigmoid's outputs are all positive, around 0.5, while ReLU sets every negative pre-activation to
#   exactly 0 (the `input to linear3` lines). So comparing one layer across the two activations says little.
# - **The signal is the ratio first layer / last layer** within one network: how much of the
#   gradient that reaches the last layer is left by the time the backward pass arrives at the first.
#   The `first / last layer` line shows it; the rest of this page uses that ratio.

# %% tags=["fold"]
# Checking the statements above
check("both runs saw the same batch", torch.equal(x, sigmoid_x))
check("the hooks fired last layer first",
      list(relu_stats)[0].startswith("linear3")
      and list(relu_stats)[-1].startswith("linear1"))
check("with Sigmoid, linear1 gets less gradient than with ReLU, "
      "linear3 more",
      sigmoid_means[0] < relu_means[0]
      and sigmoid_means[-1] > relu_means[-1])
check("linear3's Sigmoid inputs are all positive, their mean within 0.4-0.6",
      bool((hidden["Sigmoid"] > 0).all())
      and 0.4 < hidden["Sigmoid"].mean() < 0.6)
check("some of linear3's ReLU inputs are exactly 0",
      bool((hidden["ReLU"] == 0).any()))
check("Sigmoid's first/last ratio is below ReLU's",
      sigmoid_ratio < relu_ratio)

# %% [markdown]
# ## Twenty seeds, four activations, three depths
#
# One seed proves little. The same experiment for seeds 0 to 19, for ReLU, Sigmoid, Tanh and GELU,
# with 3, 6 and 10 `Linear` layers; the plot shows the 3-layer networks, ReLU and Sigmoid, layer by
# layer.

# %%
SEEDS = range(20)
DEPTHS = (3, 6, 10)
ACTIVATIONS = {"ReLU": nn.ReLU, "Sigmoid": nn.Sigmoid, "Tanh": nn.Tanh,
               "GELU": nn.GELU}


def sweep(depth, activation, build=make_mlp):
    """mean|g| of each Linear weight: a row per seed, first layer to last."""
    rows = []
    for seed in SEEDS:
        stats, model, _ = one_batch(depth, activation, seed, build)
        rows.append(weight_grad_means(stats, model))
    return np.array(rows)


means = {(depth, act): sweep(depth, cls)
         for depth in DEPTHS for act, cls in ACTIVATIONS.items()}

fig, ax = plt.subplots(figsize=(5, 3))
plot_layers(ax, means, 3, ["ReLU", "Sigmoid"])
ax.set_ylabel("mean |grad| of the weight")
ax.set_title("3 layers, 20 seeds: median and interquartile band")
ax.legend()
show(fig, "Mean absolute gradient of each layer's weight in a 3-layer MLP, "
     "ReLU and Sigmoid, median and interquartile band over 20 seeds, "
     "log scale.")

# %% [markdown]
# The plot shows mean|g| of each layer's weight, median over the 20 seeds, with the band from the
# 25th to the 75th percentile. Its y-axis is logarithmic: a value that is exactly 0 cannot be drawn
# on it, and the code prints a line if one is left out.
#
# The table below gives the first/last ratio for every depth and activation. A ReLU network can be
# *dead*: if every unit of some hidden layer outputs 0 for the whole batch, no gradient passes that
# layer and the weights before it get an exactly zero gradient. The ratio is then 0 (a hidden layer
# before the last is dead: the first layer's weight gets no gradient) or undefined, 0/0 (the last
# hidden layer is dead, so the last layer's weight gets none either). So the table takes the median
# over the seeds whose ratio is defined (column `n`: how many), and lists the seeds with an
# exactly-zero weight gradient under it instead of hiding them.

# %%
def first_last_ratio(means):
    """first / last layer's mean|g| per seed; NaN (undefined) if last is
    0."""
    first, last = means[:, 0], means[:, -1]
    return np.divide(first, last, out=np.full_like(first, np.nan),
                     where=last > 0)


def summary(ratios):
    """Median, interquartile range and count of the defined ratios."""
    defined = ratios[~np.isnan(ratios)]
    q1, median, q3 = np.percentile(defined, [25, 50, 75])
    return (f"{median:8.2g}  [{q1:7.2g}, {q3:7.2g}]"
            f"{len(defined):>4}")


ratios = {key: first_last_ratio(m) for key, m in means.items()}

print("first / last layer mean|g|, seeds 0-19:")
print("median, [interquartile range], and the")
print("number of seeds with a defined ratio")
for depth in DEPTHS:
    print(f"depth {depth:<2}  median  [interquartile]      n")
    for act in ACTIVATIONS:
        print(f"{act:<8}{summary(ratios[depth, act])}")
print()
for (depth, act), m in means.items():
    for seed, row in zip(SEEDS, m, strict=True):
        if (row == 0).any():
            print(f"{act}, depth {depth}, seed {seed}: mean|g| by layer",
                  np.array2string(row, precision=2))

# %% [markdown]
# In these runs:
#
# - With Sigmoid, the share of the gradient that reaches the first layer is smaller than with ReLU
#   in every seed where the comparison is defined, at all three depths. It is undefined only for
#   the dead ReLU networks at depth 10 (listed under the table): their gradient is exactly zero in
#   every weight, so they have no ratio at all, and the comparison leaves them out.
# - Seed 0's surprise is not luck: at depth 3, Sigmoid's last layer gets a larger gradient than
#   ReLU's, and its first layer a smaller one, in each of the 20 seeds.


# %% tags=["fold"]
# Checking the statements above
def sigmoid_below_relu(depth):
    """Seeds where Sigmoid's ratio < ReLU's; seeds where ReLU's is
    defined."""
    relu, sigmoid = ratios[depth, "ReLU"], ratios[depth, "Sigmoid"]
    defined = ~np.isnan(relu)
    return int((sigmoid[defined] < relu[defined]).sum()), int(defined.sum())


print("seeds with Sigmoid's ratio < ReLU's,")
print("of those with a defined ReLU ratio:")
for depth in DEPTHS:
    below, defined = sigmoid_below_relu(depth)
    print(f"depth {depth:>2}: {below} of {defined}")
check("at every depth, Sigmoid < ReLU in every seed with a defined "
      "ReLU ratio",
      all(b == d for b, d in map(sigmoid_below_relu, DEPTHS)))
dead_nets = {key: int((m == 0).any(axis=1).sum())
             for key, m in means.items()}
check("only ReLU networks were dead, and only at depth 10",
      all((n > 0) == (key == (10, "ReLU")) for key, n in dead_nets.items()))
undefined = np.isnan(ratios[10, "ReLU"])
check("the ReLU seeds without a ratio have a zero gradient in every weight",
      (means[10, "ReLU"][undefined] == 0).all())

last_larger = (means[3, "Sigmoid"][:, -1] > means[3, "ReLU"][:, -1]).sum()
first_smaller = (means[3, "Sigmoid"][:, 0] < means[3, "ReLU"][:, 0]).sum()
print("depth 3, Sigmoid vs ReLU, seeds 0-19:")
print(f"  last layer's mean|g| is larger in {last_larger} of 20 seeds")
print(f"  first layer's mean|g| is smaller in {first_smaller} of 20 seeds")
check("seed 0's surprise holds in all 20 seeds at depth 3",
      last_larger == first_smaller == 20)

# %% [markdown]
# ### Deeper networks
#
# The same plot for 3, 6 and 10 layers and all four activations (the dead networks' zeros included
# in the medians and bands).

# %%
# One figure per depth, on the same scale: side by side on a wide screen,
# one under the other on a phone, each at a size its text can be read.
bands = np.concatenate([np.percentile(m, [25, 75], axis=0).ravel()
                        for m in means.values()])
low, high = bands[bands > 0].min(), bands.max()  # 0 is not on a log axis
for depth in DEPTHS:
    fig, ax = plt.subplots(figsize=(2.6, 2.4))
    plot_layers(ax, means, depth, ACTIVATIONS, markers=False)
    ax.set_ylim(low / 2, high * 2)
    ax.set_title(f"{depth} layers")
    ax.set_ylabel("mean |grad| of the weight")
    if depth == DEPTHS[0]:
        ax.legend()
    show(fig, f"Mean absolute gradient of each layer's weight, {depth} "
         "layers, four activations, median and interquartile band over 20 "
         "seeds, log scale.")

# %% [markdown]
# The median ratio (in the table above) falls with depth for all four activations, and Sigmoid's is
# the smallest at every depth. ReLU, Tanh and GELU are not immune: at 10 layers with PyTorch's
# default initialisation their median ratios are below 0.01 too ("Try it yourself" shows what
# helps).


# %% tags=["fold"]
# Checking the statements above
def median(depth, act):
    return np.nanmedian(ratios[depth, act])


check("the median ratio falls with depth for each of the four activations",
      all(median(3, a) > median(6, a) > median(10, a) for a in ACTIVATIONS))
check("Sigmoid has the smallest median ratio at every depth",
      all(min(ACTIVATIONS, key=lambda a: median(d, a)) == "Sigmoid"
          for d in DEPTHS))
check("at depth 10, ReLU's, Tanh's and GELU's median ratios are below 0.01",
      all(median(10, a) < 0.01 for a in ("ReLU", "Tanh", "GELU")))

# %% [markdown]
# ## Why Sigmoid: its derivative is at most 1/4
#
# On the way back, each hidden layer multiplies the gradient by the activation's derivative at that
# layer's pre-activations (and by the layer's weights). The derivatives below are computed by
# autograd itself: `act(z).sum().backward()` leaves act'(z) in `z.grad`.

# %%
z = torch.linspace(-6, 6, 61, requires_grad=True)
derivatives = {}
print("largest derivative on [-6, 6]")
for act, cls in ACTIVATIONS.items():
    z.grad = None
    cls()(z).sum().backward()
    derivatives[act] = z.grad.clone()
    print(f"{act:<8} {derivatives[act].max():.4f}")

fig, ax = plt.subplots(figsize=(5, 2.8))
for act, d in derivatives.items():
    colour, _, line = STYLE[act]
    ax.plot(z.detach(), d, color=colour, ls=line, label=act)
ax.axhline(0.25, color=GREY, lw=0.8)
ax.annotate("0.25", (-6, 0.25), xytext=(0, 3), textcoords="offset points")
ax.set_xlabel("pre-activation z")
ax.set_ylabel("derivative")
ax.set_title("activation derivatives")
ax.legend()
show(fig, "Derivatives of ReLU, Sigmoid, Tanh and GELU for inputs from -6 "
     "to 6. Sigmoid's peaks at 0.25; the largest values are printed above.")

# %% [markdown]
# Sigmoid's derivative σ(z)(1 − σ(z)) is at most 0.25, its value at z = 0, so
# every Sigmoid layer scales the gradient down by a factor of at least 4 (before the weights), and
# a 10-layer network has 9 such layers. ReLU's derivative is exactly 1 for every positive input
# (and 0 for negative ones), Tanh's peaks at 1 and GELU's slightly above 1: those activations can
# pass a gradient through undiminished where their derivative is near 1, which leaves more of the
# decision to the weights, that is, to the initialisation (the first answer below shows it for ReLU).

# %% tags=["fold"]
# Checking the statements above
# the z nearest 0 (linspace's middle value is -9e-08, not 0)
at_0 = z.detach().abs().argmin()
check("Sigmoid's derivative is at most 0.25, and largest, 0.25, at z = 0",
      bool(derivatives["Sigmoid"].max() <= 0.25)
      and derivatives["Sigmoid"].argmax() == at_0
      and abs(derivatives["Sigmoid"][at_0] - 0.25) < 1e-6)
check("ReLU's derivative is 1 for every positive z, 0 for every "
      "negative one",
      bool((derivatives["ReLU"][z.detach() > 0] == 1).all()
           and (derivatives["ReLU"][z.detach() < 0] == 0).all()))
check("Tanh's derivative peaks at 1, GELU's slightly above 1 (below 1.2)",
      abs(derivatives["Tanh"].max() - 1) < 1e-6
      and 1 < derivatives["GELU"].max() < 1.2)
check("a 10-layer network has 9 Sigmoid layers",
      sum(isinstance(m, nn.Sigmoid) for m in make_mlp(10, nn.Sigmoid)) == 9)

# %% [markdown]
# ## Try it yourself
#
# Predict first, then change the code above and rerun: what happens to the first/last ratio, at 3, 6
# and 10 layers, if you
#
# 1. **change the initialisation** to the one made for the activation: He (Kaiming) init,
#    `nn.init.kaiming_normal_(weight, nonlinearity="relu")`, for ReLU, Glorot (Xavier) init,
#    `nn.init.xavier_normal_(weight)`, for Sigmoid, biases 0;
# 2. **add BatchNorm**, an `nn.BatchNorm1d(8)` between each hidden `Linear` and its activation;
# 3. **add residual connections** around each hidden 8-to-8 layer: `h = h + act(linear(h))`?
#
# The code below runs all three, for ReLU and Sigmoid, 20 seeds each; the answer is folded under it.


# %%
class Residual(nn.Module):
    """x + f(x): the identity path carries the gradient past f unchanged."""

    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return x + self.f(x)


def make_changed_mlp(depth, activation, change):
    """make_mlp with one change: "init", "batchnorm" or "residual"."""
    model = make_mlp(depth, activation)
    linears = [m for m in model if isinstance(m, nn.Linear)]
    if change == "init":
        for linear in linears:
            if activation is nn.ReLU:
                nn.init.kaiming_normal_(linear.weight, nonlinearity="relu")
            else:
                nn.init.xavier_normal_(linear.weight)
            nn.init.zeros_(linear.bias)
        return model
    layers = OrderedDict()
    for i, linear in enumerate(linears[:-1], start=1):
        if change == "batchnorm":
            block = nn.Sequential(linear, nn.BatchNorm1d(WIDTH),
                                  activation())
        else:
            block = nn.Sequential(linear, activation())
            if linear.in_features == linear.out_features:  # not the first
                block = Residual(block)
        layers[f"block{i}"] = block
    layers[f"linear{depth}"] = linears[-1]
    return nn.Sequential(layers)


CHANGES = ("init", "batchnorm", "residual")
changed_means = {
    (change, depth, act): sweep(
        depth, ACTIVATIONS[act],
        build=lambda d, a, c=change: make_changed_mlp(d, a, c))
    for change in CHANGES for depth in DEPTHS for act in ("ReLU", "Sigmoid")
}
changed_ratios = {key: first_last_ratio(m)
                  for key, m in changed_means.items()}

# %% tags=["hide-input"] jupyter={"source_hidden": true}
# The answer. On the web page this code is hidden, so as not to give it away.


def grads(change, depth, act):
    return means[depth, act] if change == "none" else changed_means[
        change, depth, act]


def ratio(change, depth, act):  # the median first/last ratio
    if change == "none":
        return float(np.nanmedian(ratios[depth, act]))
    return float(np.nanmedian(changed_ratios[change, depth, act]))


def layer(change, depth, act, index):  # the median mean|g| of one layer
    return float(np.median(grads(change, depth, act)[:, index]))


def higher(change, act, depths=DEPTHS):
    return all(ratio(change, d, act) > ratio("none", d, act) for d in depths)


def falls(change, act):
    three, six, ten = (ratio(change, d, act) for d in (3, 6, 10))
    return three > six > ten


def above(change, act, level):
    return all(ratio(change, d, act) > level for d in DEPTHS)


rows = ["median first/last ratio over seeds 0-19"]
for act in ("ReLU", "Sigmoid"):
    heads = (f"{f'depth {d}':>10}" for d in DEPTHS)
    rows.append(f"{act:<10}" + "".join(heads))
    for change in ("none", *CHANGES):
        cells = (f"{ratio(change, d, act):>10.2g}" for d in DEPTHS)
        rows.append(f"{change:<10}" + "".join(cells))
undefined = sum(int(np.isnan(r).sum()) for r in changed_ratios.values())
rows.append(f"undefined ratios with a change: {undefined}")
rows.append("")
torch.manual_seed(0)
fan_in_var = nn.Linear(1000, 1000).weight.var().item() * 1000
rows.append("PyTorch's default Linear init: var(weight) * fan_in = "
            f"{fan_in_var:.3f}")
rows.append("Sigmoid, 10 layers, median mean|g| of the first and last "
            "weight:")
for change in ("none", "residual"):
    rows.append(f"  {change:<9} first {layer(change, 10, 'Sigmoid', 0):.2g},"
                f" last {layer(change, 10, 'Sigmoid', -1):.2g}")
rows.append("")
claims = [
    ("init: He keeps ReLU's ratio above 0.1 at every depth",
     above("init", "ReLU", 0.1)),
    ("init: without it, ReLU's falls over 100-fold from 3 to 10 layers",
     ratio("none", 3, "ReLU") > 100 * ratio("none", 10, "ReLU")),
    ("init: the default init's weight variance is below He's 2 / fan_in",
     fan_in_var < 2),
    ("init: Xavier raises Sigmoid's ratio at every depth",
     higher("init", "Sigmoid")),
    ("init: ...but it still falls with depth, below 0.01 at 6 and 10",
     falls("init", "Sigmoid") and ratio("init", 6, "Sigmoid") < 0.01
     and ratio("init", 10, "Sigmoid") < 0.01),
    ("batchnorm: the ratio stays above 0.1 at every depth, for both",
     above("batchnorm", "ReLU", 0.1) and above("batchnorm", "Sigmoid", 0.1)),
    ("residual: Sigmoid's ratio is higher at every depth, still falls",
     higher("residual", "Sigmoid") and falls("residual", "Sigmoid")),
    ("residual: Sigmoid, 10 layers: first layer over 100x, last higher",
     layer("residual", 10, "Sigmoid", 0)
     > 100 * layer("none", 10, "Sigmoid", 0)
     and layer("residual", 10, "Sigmoid", -1)
     > layer("none", 10, "Sigmoid", -1)),
    ("residual: ReLU's ratio is higher at 6 and 10 layers",
     higher("residual", "ReLU", depths=(6, 10))),
]
for claim, holds in claims:
    check(claim, holds, report=rows.append)


class Answer:
    """A folded answer: <details> where HTML shows, plain text elsewhere."""

    def __init__(self, summary, pre, html):
        self.summary, self.pre, self.html = summary, pre, html

    def _repr_html_(self):
        pre = self.pre.replace("&", "&amp;").replace("<", "&lt;")
        return (f'<details class="success"><summary>{self.summary}</summary>'
                f"<pre><code>{pre}</code></pre>{self.html}</details>")

    def __repr__(self):
        return f"{self.summary}\n{self.pre}"


display(Answer("Answer: what the three changes do", "\n".join(rows), """
<p><strong>Initialisation</strong> matters a lot for ReLU: with He init its
median ratio stays above 0.1 at 3, 6 and 10 layers (the
<code>init</code> row under ReLU), where the default init let it
fall over 100-fold. PyTorch's default
<code>Linear</code> init draws smaller weights (the <code>var(weight) *
fan_in</code> line) than the 2/fan_in that keeps a ReLU signal's size from
layer to layer. For Sigmoid, Xavier init raises the ratio at every depth, but
it still falls with depth and is below 0.01 at 6 and 10 layers: Xavier's
weights don't make up for a derivative of at most 0.25 per layer.</p>
<p>In training mode, as here, <strong>BatchNorm</strong> re-centres and
re-scales each layer's pre-activations over the batch, so Sigmoid works near z = 0, where its
derivative is largest, and the backward pass through the normalisation
rescales the gradient as well. With it the median ratio stays above 0.1 at
every depth, for both activations (the <code>batchnorm</code> rows).</p>
<p><strong>Residual connections</strong> give the gradient a path around each
hidden activation after the first (the 8-to-8 layers). For Sigmoid at 10
layers the first layer's gradient is over 100 times larger than without,
but the last layer's grows too (each block adds its output to what the
last layer receives), so the ratio, although higher than without at every
depth, still falls with depth. For ReLU the ratio is
higher than without at 6 and 10 layers; at 3 layers, with a single residual
block, compare the two numbers yourself.</p>
<p>The <code>holds:</code> lines are this answer's statements, checked by the
notebook's code from the numbers above them (the code is in the downloadable
notebook).</p>
"""))
