import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
b.retain_grad()
c = b + 1


def show(label):
    print(f"{label:14}  {a.grad!s:10}  {b.grad!s}")


print(f"{'after':14}  a.grad      b.grad")
c.backward(retain_graph=True)
show("1st backward()")
c.backward()
show("2nd backward()")

# what optimizer.zero_grad() does to each parameter it holds
a.grad = None
# the last backward freed the graph: build it again
b = a * 3
b.retain_grad()
(b + 1).backward()
show("a reset")
