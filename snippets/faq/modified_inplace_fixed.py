import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
c = b * 2        # out of place: the saved output stays intact
c.sum().backward()
print(a.grad)
