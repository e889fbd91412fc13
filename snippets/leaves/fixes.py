import torch

# fix 1: create it as it must end up, in one call
w1 = torch.randn(3, dtype=torch.float64, requires_grad=True)

# fix 2: transform it unrecorded, then set the flag
w0 = torch.randn(3, requires_grad=True)
with torch.no_grad():
    w2 = w0.to(torch.float64) * 0.01
w2.requires_grad_()

# the trap: .to() recorded a copy, and requires_grad_()
# on that copy changes nothing
w3 = torch.randn(3, requires_grad=True).to(torch.float64)
w3.requires_grad_()

for name, t in {"w1": w1, "w2": w2, "w3": w3}.items():
    (t ** 2).sum().backward()
    missing = t.grad is None
    print(f"{name}: is_leaf={t.is_leaf}, grad is None: {missing}")
