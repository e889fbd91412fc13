import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(2, 1)
        # made, but never called by forward()
        self.spare = nn.Linear(2, 1)

    def forward(self, x):
        return self.used(x)


torch.manual_seed(0)
net = Net()
net(torch.randn(4, 2)).sum().backward()
print("used.weight.grad is None:", net.used.weight.grad is None)
print("spare.weight.grad:", net.spare.weight.grad)
