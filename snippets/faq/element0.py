import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)

# the loss computed in an evaluation helper, under no_grad()
with torch.no_grad():
    loss = nn.functional.mse_loss(model(x), y)
print(f"loss.requires_grad: {loss.requires_grad}")
print(f"loss.grad_fn: {loss.grad_fn}")
loss.backward()
