import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True) * 0.01  # the result of `* 0.01`, not a leaf

loss = (w ** 2).sum()
loss.backward()
print(w.is_leaf, w.grad)
