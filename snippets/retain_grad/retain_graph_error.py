import torch

a = torch.tensor(2.0, requires_grad=True)
b = a.exp()          # exp saves its result for the backward pass
c = b + 1

c.backward()         # frees the saved result
c.backward()         # needs it again
