import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
pred = model(torch.randn(4, 3))
print("pred.requires_grad:", pred.requires_grad)
pred.numpy()
