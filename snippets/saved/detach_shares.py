import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
d = b.detach()
print("versions of b, d:", b._version, d._version)
d.zero_()
print("after d.zero_():", b._version, d._version)
b.sum().backward()
