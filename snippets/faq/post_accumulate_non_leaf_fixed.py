import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 2)
out = layer(torch.randn(3, 4))
# a parameter is a leaf: its .grad is where gradients accumulate
layer.weight.register_post_accumulate_grad_hook(
    lambda p: print("weight.grad:", tuple(p.grad.shape))
)
# an intermediate's gradient, as it passes: register_hook
out.register_hook(lambda g: print("out's gradient:", tuple(g.shape)))
out.sum().backward()
