import torch
import torch.nn as nn


def grads(freeze):
    """Which of three stacked layers get a .grad, middle frozen."""
    torch.manual_seed(0)
    first, middle, last = (nn.Linear(4, 4) for _ in range(3))
    x = torch.randn(2, 4)
    out = last(freeze(middle, first(x)))
    out.sum().backward()
    layers = (first, middle, last)
    return [layer.weight.grad is not None for layer in layers]


def requires_grad_false(middle, h):
    middle.requires_grad_(False)
    return middle(h)


def no_grad(middle, h):
    with torch.no_grad():
        return middle(h)


def detach(middle, h):
    return middle(h.detach())


print(f"{'middle frozen by':>19} | first middle last")
for freeze in (requires_grad_false, no_grad, detach):
    first, middle, last = grads(freeze)
    print(f"{freeze.__name__:>19} | {first!s:5} {middle!s:6} {last}")
