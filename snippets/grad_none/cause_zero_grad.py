import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(2, 1)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
layer(torch.randn(4, 2)).sum().backward()
opt.step()
# set_to_none=True by default: .grad becomes None
opt.zero_grad()
print("after zero_grad():", layer.bias.grad)
layer(torch.randn(4, 2)).sum().backward()
opt.zero_grad(set_to_none=False)
print("set_to_none=False:", layer.bias.grad)
