import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(16, 4)

# an intermediate activation
hidden = model[1](model[0](x))
loss = model[2](hidden).pow(2).mean()

# the gradient with respect to the activation, returned, not stored
(d_hidden,) = torch.autograd.grad(
    loss, [hidden], retain_graph=True
)
shape, norm = tuple(d_hidden.shape), d_hidden.norm()
print("d loss / d hidden:", shape, f"norm {norm:.4f}")
weight = model[0].weight
print("hidden.retains_grad:", hidden.retains_grad,
      "| weight.grad:", weight.grad)

# the usual backward pass still works: retain_graph=True kept it
loss.backward()
print("weight.grad after backward:", tuple(weight.grad.shape))
