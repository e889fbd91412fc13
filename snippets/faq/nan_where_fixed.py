import torch

a = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
# the unsafe op only ever sees safe values
safe = torch.where(a > 0, a, 1.0)
torch.where(a > 0, safe.log(), 0).sum().backward()
print("log: ", a.grad)

b = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
safe = torch.where(b > 0, b, 1.0)
torch.where(b > 0, safe.sqrt(), 0).sum().backward()
print("sqrt:", b.grad)
