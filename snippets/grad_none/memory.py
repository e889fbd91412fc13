import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, 10),
)
x = torch.randn(256, 512)

intermediates = []
h = x
for layer in model:
    h = layer(h)
    # every one of these is a non-leaf
    intermediates.append(h)

params = sum(p.numel() for p in model.parameters())
extra = sum(t.numel() for t in intermediates)
print(f"gradient numbers stored for the parameters: {params:,}")
print(f"extra if every intermediate kept its .grad: {extra:,}")
