import torch
from torch import nn

model = nn.Linear(3, 1)
with torch.inference_mode():
    features = torch.randn(2, 3) * 2       # made in inference mode: an inference tensor
print("is_inference:", features.is_inference(), " requires_grad:", features.requires_grad)

loss = model(features).sum()               # Linear saves its input to compute weight's gradient
