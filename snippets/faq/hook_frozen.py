import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model[0].requires_grad_(False)  # freeze the first layer

for p in model.parameters():
    p.register_hook(lambda grad: print(grad.shape))
