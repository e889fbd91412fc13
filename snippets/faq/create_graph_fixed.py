import warnings

import torch
import torch.nn as nn

# warn at every call, not once per process
torch.set_warn_always(True)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(8, 3, requires_grad=True)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = model(x).sum()
    # a gradient penalty: the gradient is returned, with its graph
    (dx,) = torch.autograd.grad(out, x, create_graph=True)
    penalty = dx.pow(2).sum()
    penalty.backward()
print(f"{len(caught)} warnings")
weight = model[0].weight
print("0.weight.grad:", tuple(weight.grad.shape),
      "| has a graph:", weight.grad.grad_fn is not None)
