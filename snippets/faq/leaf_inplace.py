import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
lr = 0.1

loss = (w ** 2).sum()
loss.backward()
# a hand-written SGD step
w -= lr * w.grad
