import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))
total = 0.0
for _ in range(100):
    model.zero_grad()
    loss = model(torch.randn(256, 8)).pow(2).mean()
    loss.backward()
    # a Python float: it keeps no graph
    total += loss.item()
print("training:", type(total).__name__, round(total / 100, 3))

total = 0.0
with torch.no_grad():
    for _ in range(100):
        loss = model(torch.randn(256, 8)).pow(2).mean()
        total += loss.item()
print("evaluation:", type(total).__name__, round(total / 100, 3))
print("the last loss requires grad:", loss.requires_grad)
