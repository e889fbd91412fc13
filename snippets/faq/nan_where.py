import torch

a = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
# log only where a > 0, 0 elsewhere
torch.where(a > 0, a.log(), 0).sum().backward()
print("log: ", a.grad)

b = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
torch.where(b > 0, b.sqrt(), 0).sum().backward()
print("sqrt:", b.grad)
