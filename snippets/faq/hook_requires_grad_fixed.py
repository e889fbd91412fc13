import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model[0].requires_grad_(False)


def make_hook(name):
    return lambda grad: print("gradient for", name)


for name, p in model.named_parameters():
    # frozen parameters get no gradient: nothing to hook
    if p.requires_grad:
        p.register_hook(make_hook(name))

# grad mode on, so the output is in the graph
out = model(torch.randn(3, 4))
print("out.requires_grad:", out.requires_grad)
out.register_hook(lambda grad: print("gradient for the output"))
out.sum().backward()
