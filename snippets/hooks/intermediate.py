import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
# dc/db = 2b = 12
c = b * b


def show(grad):
    print("gradient arriving at b:", grad)


b.register_hook(show)
c.backward()
# 12 * 3
print("a.grad:", a.grad)
