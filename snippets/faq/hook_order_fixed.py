import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
seen = {}
# registered first: it sees the original gradient
b.register_hook(lambda g: seen.setdefault("before the change", g))
b.register_hook(lambda g: g * 10)
# stores the final one
b.retain_grad()
b.backward()

print("original gradient at b:", seen["before the change"])
print("b.grad:", b.grad, " a.grad:", a.grad)
