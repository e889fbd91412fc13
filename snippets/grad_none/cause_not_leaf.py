import torch

# the weight is the result of * 0.01: a non-leaf
w = torch.randn(3, requires_grad=True) * 0.01
loss = (w * 2).sum()
loss.backward()
print("w.is_leaf:", w.is_leaf)
print("w.grad:", w.grad)
