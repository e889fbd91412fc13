import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
# ask for x's gradient before the forward pass uses it
x = torch.randn(8, 4).requires_grad_()
loss = model(x).pow(2).mean()

d_weight, d_x = torch.autograd.grad(loss, [model.weight, x])
print("d loss / d weight:", tuple(d_weight.shape))
print("d loss / d x:", tuple(d_x.shape))
