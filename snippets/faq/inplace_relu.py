import torch
import torch.nn as nn

torch.manual_seed(0)
layers = [nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 2)]
model = nn.Sequential(*layers)
model[0].register_full_backward_hook(
    lambda module, grad_input, grad_output: print(grad_output)
)

out = model(torch.randn(3, 4))
