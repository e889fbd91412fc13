import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # registers each layer as a submodule: blocks.0, blocks.1
        self.blocks = nn.ModuleList(
            [nn.Linear(4, 4), nn.Linear(4, 4)]
        )
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x).relu()
        return self.head(x)


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
before = net.blocks[0].weight.detach().clone()
for _ in range(5):
    opt.zero_grad()
    net(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
names = [name for name, _ in net.named_parameters()]
print("parameters():", *names, sep="\n  ")
print("blocks[0].weight.grad is None:",
      net.blocks[0].weight.grad is None)
print("blocks[0] changed:",
      not torch.equal(before, net.blocks[0].weight))
