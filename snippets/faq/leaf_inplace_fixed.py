import torch
import torch.nn as nn

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
lr = 0.1

# changes to the weights are not part of the model: don't record them
with torch.no_grad():
    w[0] = 0.0
print("init:", w.detach())

loss = (w ** 2).sum()
loss.backward()
with torch.no_grad():
    w -= lr * w.grad
w.grad = None
print("step:", w.detach())
print("still a leaf:", w.is_leaf)

# torch.nn.init functions do their own no_grad
nn.init.normal_(w)
print("nn.init.normal_ ran, is_leaf:", w.is_leaf)
