import torch

w = torch.randn(3, requires_grad=True)
# the same values, outside the graph
value = w.to(torch.float64).detach()
print(f"detach(): is_leaf={value.is_leaf}, "
      f"requires_grad={value.requires_grad}")

# a new weight of its own: transform unrecorded, then ask for grad
with torch.no_grad():
    w64 = w.to(torch.float64)
w64.requires_grad_()
(w64 * 2).sum().backward()
print(f"w64: is_leaf={w64.is_leaf}, grad={w64.grad}")
