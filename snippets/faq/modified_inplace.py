import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# sigmoid saves its output for the backward pass
b = a.sigmoid()
# ...and this overwrites it
b.mul_(2)
b.sum().backward()
