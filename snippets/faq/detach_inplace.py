import torch

a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
# sigmoid saves its output for the backward pass
b = a.sigmoid()
# detach() shares b's memory and its version counter
b.detach().zero_()
print(f"b's version after the write: {b._version}")
b.sum().backward()
