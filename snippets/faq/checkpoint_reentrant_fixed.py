import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block, head = nn.Linear(4, 4), nn.Linear(4, 1)
x = torch.randn(2, 4)
h = checkpoint(block, x, use_reentrant=False)

print("h.requires_grad:", h.requires_grad)
head(h).sum().backward()
print("block.weight.grad is None:", block.weight.grad is None)
