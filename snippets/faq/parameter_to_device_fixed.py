import torch
import torch.nn as nn

# stands in for "cuda": this build machine has no GPU
device = "meta"


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        # or nn.Parameter(torch.ones(3, device=device))
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.w * x


# Module.to() moves the parameters and keeps them parameters
model = Scale().to(device)
print("type(model.w):", type(model.w).__name__,
      "| is_leaf:", model.w.is_leaf, "| device:", model.w.device)
print("parameters:", [name for name, _ in model.named_parameters()])
