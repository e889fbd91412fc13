import torch

a = torch.tensor(2.0, requires_grad=True)
b = a.exp()
c = b + 1

# keep the saved tensors for another pass
c.backward(retain_graph=True)
# the last pass may free them
c.backward()
# two passes: twice d(exp a)/da
print(a.grad, 2 * a.detach().exp())
