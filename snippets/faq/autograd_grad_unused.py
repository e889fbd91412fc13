import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
x = torch.randn(16, 4)
features = encoder(x)
# detach() cut the loss off from `features`
loss = head(features.detach()).pow(2).mean()

inputs = [head.weight, features]
torch.autograd.grad(loss, inputs)
