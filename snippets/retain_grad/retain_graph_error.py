import torch

a = torch.tensor(2.0, requires_grad=True)
# exp saves its result for the backward pass
b = a.exp()
c = b + 1

# frees the saved result
c.backward()
# needs it again
c.backward()
