import torch

a = torch.tensor(2.0, requires_grad=True)
# a reaches c along two paths: through b, and through a ** 2
b = a * 3
c = b + a ** 2
c.backward()

# 3 (through b) + 2 * a (through a ** 2)
print("a.grad:", a.grad)
