import torch
import torch.nn as nn

torch.manual_seed(0)
encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
x = torch.randn(16, 4)
features = encoder(x)
loss = head(features.detach()).pow(2).mean()

# if "not used" is a legitimate answer, ask for None, not an error
d_weight, d_features = torch.autograd.grad(
    loss, [head.weight, features], allow_unused=True
)
print("d loss / d head.weight:", tuple(d_weight.shape),
      "| d loss / d features:", d_features)
