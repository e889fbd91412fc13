import torch

w = torch.ones(3, requires_grad=True)
h = w * 2             # not a leaf: it has a grad_fn
d = h.detach()        # a leaf: cut from the graph, requires_grad=False

print(h.is_leaf, h.requires_grad, h.grad_fn.name())
print(d.is_leaf, d.requires_grad, d.grad_fn)

d[0] = 100.0          # detach() shares storage: h changes too
print(h)
