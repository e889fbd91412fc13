import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x = torch.randn(16, 4)

hidden = model[1](model[0](x))  # an intermediate activation
loss = model[2](hidden).pow(2).mean()

# The gradient with respect to the activation, returned, stored nowhere.
(d_hidden,) = torch.autograd.grad(loss, [hidden], retain_graph=True)
print("d loss / d hidden:", tuple(d_hidden.shape), f"norm {d_hidden.norm():.4f}")
print("hidden.retains_grad:", hidden.retains_grad, "| weight.grad:", model[0].weight.grad)

loss.backward()  # the usual backward pass still works: retain_graph=True kept the graph
print("weight.grad after backward:", tuple(model[0].weight.grad.shape))
