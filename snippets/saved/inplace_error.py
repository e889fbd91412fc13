import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
# exp saves its result, b, at version 0
b = a.exp()
# writes into b: version 1
b.add_(1)
b.sum().backward()
