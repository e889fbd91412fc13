import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True).to(torch.float64)  # the copy .to() made, not a leaf

loss = (w ** 2).sum()
loss.backward()
print(w.is_leaf, w.grad)
