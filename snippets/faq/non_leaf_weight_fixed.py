import torch

torch.manual_seed(0)
# or "cuda"
device = "cpu"

# created where and as you use it: the factory's result is the leaf
w1 = torch.randn(3, device=device, requires_grad=True)

# scaled (or moved) without recording: the result is a leaf already,
# and requires_grad_() asks for its gradient
with torch.no_grad():
    w2 = torch.randn(3, device=device) * 0.01
w2.requires_grad_()

# or computed from a tensor that needs no grad, then requires_grad_()
w3 = (torch.randn(3) * 0.01).to(device).requires_grad_()

for name, w in {"w1": w1, "w2": w2, "w3": w3}.items():
    (w ** 2).sum().backward()
    print(f"{name}: is_leaf={w.is_leaf}, grad={w.grad}")

# a module's parameters: move the whole model (its parameters stay
# leaves), and scale them in place without recording
model = torch.nn.Linear(3, 1).to(torch.float64)
with torch.no_grad():
    model.weight.mul_(0.01)
model(torch.ones(3, dtype=torch.float64)).sum().backward()
print(f"model.weight: is_leaf={model.weight.is_leaf}, "
      f"grad is None: {model.weight.grad is None}")
