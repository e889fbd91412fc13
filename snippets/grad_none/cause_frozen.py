import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
# frozen, for fine-tuning: autograd skips it
model[0].weight.requires_grad_(False)
model(torch.randn(4, 2)).sum().backward()
print("0.weight.grad:", model[0].weight.grad)
print("1.weight.grad is None:", model[1].weight.grad is None)
