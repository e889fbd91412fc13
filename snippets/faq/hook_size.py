import torch

w = torch.ones(4, requires_grad=True)
h = w * 2
# meant: scale the gradient; returns its mean, a 0-dim tensor
h.register_hook(lambda grad: grad.mean())
h.sum().backward()
