import torch
from torch import nn

model = nn.Linear(3, 1)
x = torch.randn(2, 3)

out = model(x)
print(f"{'normal':18} is_leaf={out.is_leaf!s:5} requires_grad={out.requires_grad}")
model.eval()                               # changes dropout and batch norm, not autograd
out = model(x)
print(f"{'model.eval()':18} is_leaf={out.is_leaf!s:5} requires_grad={out.requires_grad}")
with torch.no_grad():
    out = model(x)
print(f"{'torch.no_grad()':18} is_leaf={out.is_leaf!s:5} requires_grad={out.requires_grad}")
with torch.inference_mode():
    out = model(x)
print(f"{'inference_mode()':18} is_leaf={out.is_leaf!s:5} requires_grad={out.requires_grad}"
      f"  is_inference={out.is_inference()}")
print("weight.grad after all four:", model.weight.grad)
