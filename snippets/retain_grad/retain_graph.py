import torch

a = torch.tensor(2.0, requires_grad=True)
b = a.exp()
c = b + 1

c.backward(retain_graph=True)  # keep the saved tensors for another pass
c.backward()                   # the last pass may free them
print(a.grad, 2 * a.detach().exp())  # two passes: twice d(exp a)/da
