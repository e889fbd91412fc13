import torch

# requires_grad=False: no graph, so no gradient to keep
x = torch.ones(3)
x.retain_grad()
