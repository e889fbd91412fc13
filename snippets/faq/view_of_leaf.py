import torch

torch.manual_seed(0)
# the view is not the leaf
w = torch.randn(4, requires_grad=True).view(2, 2)
print("is_leaf:", w.is_leaf, " grad_fn:", w.grad_fn.name())

loss = (w ** 2).sum()
loss.backward()
print("w.grad:", w.grad)
