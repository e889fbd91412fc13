import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
x, y = torch.randn(4, 2), torch.randn(4, 1)

for step in range(3):
    # or optimizer.zero_grad(): start each step from no gradient
    model.zero_grad()
    cleared = model.bias.grad
    print(f"step {step}: after zero_grad: {cleared}", end=" | ")
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    print(f"after backward: {model.bias.grad}")
