import torch

torch.manual_seed(0)
device = "cpu"  # or "cuda"

# Create it where, and as, it must end up: the factory's result is the leaf.
w1 = torch.randn(3, device=device, requires_grad=True)

# Scale (or move) without recording, then ask for gradients: requires_grad_() makes it a leaf.
with torch.no_grad():
    w2 = torch.randn(3, device=device) * 0.01
w2.requires_grad_()

# Or compute from a tensor that needs no grad, then requires_grad_().
w3 = (torch.randn(3) * 0.01).to(device).requires_grad_()

for name, w in {"w1": w1, "w2": w2, "w3": w3}.items():
    (w ** 2).sum().backward()
    print(f"{name}: is_leaf={w.is_leaf}, grad={w.grad}")
