import torch
import torch.nn as nn
from torch.autograd import grad

torch.manual_seed(0)
model = nn.Linear(4, 1)
# data: requires_grad=False
x = torch.randn(8, 4)
loss = model(x).pow(2).mean()

print("x.requires_grad:", x.requires_grad)
grads = grad(loss, [model.weight, x])
