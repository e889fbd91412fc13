import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.Linear(4, 2)
out = layer(torch.randn(3, 4))
# out is an intermediate: nothing is ever accumulated into its .grad
register = out.register_post_accumulate_grad_hook
register(print)
