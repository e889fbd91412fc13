import torch

a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
b = a.sigmoid()
expected = (b * (1 - b)).detach()
# .data shares b's memory but not its version counter
b.data.zero_()
print(f"b's version after the write: {b._version}")
b.sum().backward()
print(f"a.grad: {a.grad}")
print(f"right:  {expected}")
