import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
x = torch.randn(8, 4)


# called with each tensor the graph saves for backward()
def pack(t):
    print("saved", tuple(t.shape))
    return t


with saved_tensors_hooks(pack, lambda t: t):
    out = model(x)
