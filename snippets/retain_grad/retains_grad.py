import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
print("before:", b.retains_grad)
b.retain_grad()
print("after b.retain_grad():", b.retains_grad)

# a is a leaf that requires grad: this changes nothing
a.retain_grad()
print("a.is_leaf:", a.is_leaf, " a.retains_grad:", a.retains_grad)

(b + 1).backward()
print("a.grad:", a.grad, " b.grad:", b.grad)
