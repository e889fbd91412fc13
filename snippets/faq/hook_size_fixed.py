import torch

w = torch.ones(4, requires_grad=True)
h = w * 2
# the same shape as grad: its mean, broadcast back
h.register_hook(lambda grad: grad.mean().expand_as(grad))
h.sum().backward()
print("w.grad:", w.grad)
