import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
# out of place: a new tensor, the saved b is untouched
b = b + 1
b.sum().backward()
print("a.grad:", a.grad)
