import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1
b.register_hook(lambda grad: print("gradient passing through b during backward:", grad))
c.backward()

print("a.grad after backward:", a.grad)
print("b.retains_grad:", b.retains_grad)  # False: b's gradient was used, then dropped
