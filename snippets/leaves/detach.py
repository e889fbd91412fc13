import torch

w = torch.ones(3, requires_grad=True)
# not a leaf: it has a grad_fn
h = w * 2
# a leaf: cut from the graph, requires_grad=False
d = h.detach()

print(h.is_leaf, h.requires_grad, h.grad_fn.name())
print(d.is_leaf, d.requires_grad, d.grad_fn)

# detach() shares memory: h changes too
d[0] = 100.0
print(h)
