import torch
import torch.nn as nn

torch.manual_seed(0)
# three Linear layers, as in the exercise
model = nn.Sequential(
    nn.Linear(4, 8), nn.Sigmoid(),
    nn.Linear(8, 8), nn.Sigmoid(),
    nn.Linear(8, 1))


def report(name):
    return lambda grad: print(f"{name}: |grad|.mean = {grad.abs().mean():.2e}")


for name, p in model.named_parameters():
    if name.endswith("weight"):
        p.register_hook(report(name))
loss = model(torch.randn(16, 4)).pow(2).mean()
loss.backward()
