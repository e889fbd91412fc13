import torch
from torch import nn

torch.manual_seed(0)
first, last = nn.Linear(2, 2), nn.Linear(2, 1)
x = torch.randn(4, 2)

# detach() cuts the graph between the layers
last(first(x).detach()).sum().backward()
print("detach():  first.weight.grad:", first.weight.grad)

# so does computing the first layer under no_grad()
with torch.no_grad():
    h = first(x)
last(h).sum().backward()
print("no_grad(): first.weight.grad:", first.weight.grad)
