import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
# initialise one entry by hand
w[0] = 0.0
