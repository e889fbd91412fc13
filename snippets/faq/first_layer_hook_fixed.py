import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def show(module, grad_input, grad_output):
    shapes = [tuple(g.shape) for g in grad_input]
    print("first layer hook fired: grad_input =", shapes)


model[0].register_full_backward_hook(show)
# ask for the gradient with respect to the input
x = torch.randn(3, 4, requires_grad=True)
model(x).sum().backward()
print("x.grad:", tuple(x.grad.shape))
