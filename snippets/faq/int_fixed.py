import torch

# values that take gradients are created floating point
labels = torch.tensor([0.0, 2.0, 1.0], requires_grad=True)
print(f"{labels.dtype}, requires_grad={labels.requires_grad}")

x = torch.randn(4, requires_grad=True)
# a float copy of the index can require grad, but it is a new
# leaf: nothing connects it to x
index = x.argmax().float().requires_grad_()
index.backward()
print(f"index.is_leaf={index.is_leaf}, x.grad={x.grad}")

# a differentiable stand-in: the softmax-weighted mean position
soft_index = (x.softmax(0) * torch.arange(4.0)).sum()
soft_index.backward()
print(f"x.grad is None: {x.grad is None}")
