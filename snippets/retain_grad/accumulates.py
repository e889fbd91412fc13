import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
b.retain_grad()
c = b + 1

c.backward(retain_graph=True)
print("after 1st backward: a.grad =", a.grad, " b.grad =", b.grad)
c.backward()
print("after 2nd backward: a.grad =", a.grad, " b.grad =", b.grad)

# what optimizer.zero_grad() does to each parameter it holds
a.grad = None
# the last backward freed the graph: build it again
b = a * 3
b.retain_grad()
(b + 1).backward()
print("after a reset:      a.grad =", a.grad, " b.grad =", b.grad)
