import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b * b

# the hook returns a tensor: it replaces the gradient
b.register_hook(lambda grad: grad.clamp(max=1.0))
c.backward()
# 1.0 * 3 instead of 12 * 3
print("a.grad:", a.grad)
