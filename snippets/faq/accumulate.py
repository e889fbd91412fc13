import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
x, y = torch.randn(4, 2), torch.randn(4, 1)

for step in range(3):
    # same weights, same batch: the same gradient each time
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    print(f"step {step}: bias.grad = {model.bias.grad}")
