import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b * b

b.register_hook(lambda grad: grad.clamp(max=1.0))  # return a tensor: it replaces the gradient
c.backward()
print("a.grad:", a.grad)  # 1.0 * 3 instead of 12 * 3
