import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
# out of place: the saved output stays intact
c = b * 2
c.sum().backward()
print(a.grad)
