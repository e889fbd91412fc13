import torch

torch.manual_seed(0)
# .to() records a copy: w is that copy, not the leaf
w = torch.randn(3, requires_grad=True).to(torch.float64)

loss = (w ** 2).sum()
loss.backward()
print("w.is_leaf:", w.is_leaf, " w.grad_fn:", w.grad_fn.name())
