import warnings

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block, head = nn.Linear(4, 4), nn.Linear(4, 1)
# data: requires_grad=False
x = torch.randn(2, 4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    h = checkpoint(block, x, use_reentrant=True)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

print("h.requires_grad:", h.requires_grad)
head(h).sum().backward()
print("head.weight.grad is None:", head.weight.grad is None)
print("block.weight.grad:", block.weight.grad)
