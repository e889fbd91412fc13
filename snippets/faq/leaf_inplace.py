import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
lr = 0.1

loss = (w ** 2).sum()
loss.backward()
w -= lr * w.grad  # a hand-written SGD step
