import warnings

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)


def show(kind):
    def hook(module, grad_input, grad_output):
        shapes = [None if g is None else tuple(g.shape)
                  for g in grad_input]
        print(f"{kind}: grad_input shapes {shapes}")
    return hook


# the block's input is (3, 4)
block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
block.register_backward_hook(show("register_backward_hook"))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    block(x).sum().backward()
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
block.register_full_backward_hook(show("register_full_backward_hook"))
block(x).sum().backward()
