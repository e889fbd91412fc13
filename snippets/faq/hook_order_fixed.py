import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
seen = {}
b.register_hook(lambda g: seen.setdefault("before the change", g))  # first: the original gradient
b.register_hook(lambda g: g * 10)
b.retain_grad()                                                     # stores the final one
b.backward()

print("original gradient at b:", seen["before the change"])
print("b.grad:", b.grad, " a.grad:", a.grad)
