import torch
from torch import nn

model = nn.Linear(3, 1)
with torch.inference_mode():
    # made in inference mode: an inference tensor
    features = torch.randn(2, 3) * 2
print("is_inference:", features.is_inference(),
      " requires_grad:", features.requires_grad)

# Linear saves its input to compute its weight's gradient
loss = model(features).sum()
