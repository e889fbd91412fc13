import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
x = torch.randn(256, 512)

intermediates = []
h = x
for layer in model:
    h = layer(h)
    intermediates.append(h)  # every one of these is a non-leaf

parameter_numbers = sum(p.numel() for p in model.parameters())
intermediate_numbers = sum(t.numel() for t in intermediates)
print(f"gradient numbers stored for the parameters (leaves): {parameter_numbers:,}")
print(f"extra numbers if every intermediate kept its .grad:  {intermediate_numbers:,}")
