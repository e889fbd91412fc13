import torch
import torch.nn as nn

# stands in for "cuda": this build machine has no GPU
device = "meta"


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        # to another device, .to() returns a new, plain tensor
        self.w = nn.Parameter(torch.ones(3)).to(device)

    def forward(self, x):
        return self.w * x


model = Scale()
print("type(model.w):", type(model.w).__name__,
      "| is_leaf:", model.w.is_leaf)
print("parameters:", [name for name, _ in model.named_parameters()])
