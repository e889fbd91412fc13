import torch

# a weight made in one call: a leaf
w = torch.ones(2, requires_grad=True)
# a weight scaled after it was made: v is the copy that * made
v = torch.ones(2, requires_grad=True) * 0.5

(w * v).sum().backward()
print("w.grad:", w.grad)
print("v.grad:", v.grad)
