import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
# an evaluation pass: nothing is recorded
with torch.no_grad():
    out = model(torch.randn(3, 4))
print("out.requires_grad:", out.requires_grad)
out.register_hook(print)
