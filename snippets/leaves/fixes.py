import torch

torch.manual_seed(0)

# Fix 1: create the tensor as it must be (dtype, device), asking for grad in the same call.
w1 = torch.randn(3, dtype=torch.float64, requires_grad=True)

# Fix 2: compute it first from tensors that need no grad, then turn on grad in place.
w2 = (torch.randn(3) * 0.01).requires_grad_()

# Fix 3: transform an existing leaf without recording it, then ask for grad.
w0 = torch.randn(3)
with torch.no_grad():
    w3 = w0.to(torch.float64) * 0.01
w3.requires_grad_()

for name, w in {"w1": w1, "w2": w2, "w3": w3}.items():
    (w ** 2).sum().backward()
    print(f"{name}: is_leaf={w.is_leaf}, grad is None: {w.grad is None}")
