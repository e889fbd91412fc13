import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
# registered first
b.retain_grad()
b.register_hook(lambda g: print("hook 1 sees", g))
# hook 2 returns a new gradient
b.register_hook(lambda g: g * 10)
b.register_hook(lambda g: print("hook 3 sees", g))
a.register_hook(lambda g: print("a's hook sees", g))
b.backward()

print("b.grad:", b.grad)
print("a.grad:", a.grad)
