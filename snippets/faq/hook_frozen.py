import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
# freeze the first layer
model[0].requires_grad_(False)

for p in model.parameters():
    p.register_hook(print)
