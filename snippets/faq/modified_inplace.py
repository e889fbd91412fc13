import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()  # sigmoid saves its output for the backward pass
b.mul_(2)        # ...and this overwrites it
b.sum().backward()
