import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
print("b._version:", b._version)
b.add_(1)
print("after b.add_(1):", b._version)
b[0] = 0
print("after b[0] = 0:", b._version)
# a view shares its base's counter
b.view(2).mul_(2)
print("after b.view(2).mul_(2):", b._version)
# out of place: b is read, not written
c = b + 1
print("after c = b + 1:", b._version)
