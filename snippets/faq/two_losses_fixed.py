import torch

# Fix 1: one backward pass through the sum of the losses.
a = torch.tensor(2.0, requires_grad=True)
shared = a.exp()
(shared * 3 + shared ** 2).backward()
print("summed:       a.grad =", a.grad)

# Fix 2: keep the graph on every backward pass but the last.
b = torch.tensor(2.0, requires_grad=True)
shared = b.exp()
(shared * 3).backward(retain_graph=True)
(shared ** 2).backward()
print("retain_graph: b.grad =", b.grad)
