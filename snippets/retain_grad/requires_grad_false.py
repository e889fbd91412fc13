import torch

x = torch.ones(3)  # requires_grad=False: no graph, so no gradient to keep
x.retain_grad()
