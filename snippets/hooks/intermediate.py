import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b * b            # dc/db = 2b = 12


def show(grad):
    print("gradient arriving at b:", grad)


b.register_hook(show)
c.backward()
print("a.grad:", a.grad)  # 12 * 3
