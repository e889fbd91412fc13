import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def show(name):
    def hook(module, grad_input, grad_output):
        print(f"{name} hook fired: grad_input={shapes(grad_input)} "
              f"grad_output={shapes(grad_output)}")
    return hook


model[0].register_full_backward_hook(show("first layer"))
model[2].register_full_backward_hook(show("last layer"))
# data: requires_grad=False
x = torch.randn(3, 4)
model(x).sum().backward()

print("-- with the first layer frozen --")
model[0].requires_grad_(False)
first = model[0](x)
print("first layer's output requires grad:", first.requires_grad)
out = model(x)
out.sum().backward()
