import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # a plain Python list: nn.Module does not look inside
        self.layers = [nn.Linear(4, 4), nn.Linear(4, 1)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


torch.manual_seed(0)
net = Net()
net(torch.randn(8, 4)).sum().backward()
print("layers[0].weight.grad is None:",
      net.layers[0].weight.grad is None)
print("parameters():", len(list(net.parameters())))
print("state_dict():", list(net.state_dict()))
params = net.parameters()
torch.optim.SGD(params, lr=0.1)
