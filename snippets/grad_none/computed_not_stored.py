import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1
b.register_hook(
    lambda grad: print("gradient passing through b:", grad))
c.backward()

print("a.grad:", a.grad)
# False: b's gradient was used, then dropped
print("b.retains_grad:", b.retains_grad)
print("b.grad:", b.grad)
