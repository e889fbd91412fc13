import torch
import torch.nn as nn

device = "meta"  # stands in for "cuda": this build machine has no GPU


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))  # or nn.Parameter(torch.ones(3, device=device))

    def forward(self, x):
        return self.w * x


model = Scale().to(device)  # Module.to() moves the parameters and keeps them parameters
print("type(model.w):", type(model.w).__name__, "| is_leaf:", model.w.is_leaf, "| device:", model.w.device)
print("parameters:", [name for name, _ in model.named_parameters()])
