import torch
import torch.nn as nn

w = torch.zeros(3, requires_grad=True)
p = nn.Parameter(torch.zeros(3))
x = torch.ones(3)
# computed, but from a tensor that needs no grad
y = x * 2
# computed from a tensor that requires grad
z = w * 2

for name, t in {"w": w, "p": p, "y": y, "z": z}.items():
    fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{name}: is_leaf={t.is_leaf}, "
          f"requires_grad={t.requires_grad}, grad_fn={fn}")
