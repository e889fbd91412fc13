import torch
from torch.autograd.graph import saved_tensors_hooks

a = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)


def saved_by(op):
    saved = []

    # called with each tensor the graph saves for backward()
    def pack(t):
        saved.append(t.item())
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        op()
    return saved


print("operation  saved for backward()")
print("a * w     ", saved_by(lambda: a * w))
print("a.exp()   ", saved_by(lambda: a.exp()))
print("a + w     ", saved_by(lambda: a + w))
with torch.no_grad():
    print("no_grad   ", saved_by(lambda: a * w))
