import torch

torch.manual_seed(0)
leaf = torch.randn(3, requires_grad=True)
torch.optim.SGD([leaf], lr=0.1)
print("a leaf: accepted")

# not a leaf
w = torch.randn(3, requires_grad=True) * 0.01
opt = torch.optim.SGD([w], lr=0.1)
