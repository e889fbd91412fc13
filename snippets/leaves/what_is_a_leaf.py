import torch
import torch.nn as nn

w = torch.zeros(3, requires_grad=True)  # created by you, requires grad
p = nn.Parameter(torch.zeros(3))        # a parameter, as nn.Linear creates them
x = torch.ones(3)                       # requires_grad=False
y = x * 2                               # computed, but from tensors that need no grad
z = w * 2                               # computed from a tensor that requires grad

for name, t in {"w": w, "p": p, "x": x, "y": y, "z": z}.items():
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: is_leaf={t.is_leaf}, requires_grad={t.requires_grad}, grad_fn={grad_fn}")
