import torch

w = torch.randn(3, requires_grad=True)
scaled = w.to(torch.float64)
print(f"scaled: is_leaf={scaled.is_leaf}")
# requires_grad_(True) on a non-leaf is accepted: it changes nothing
scaled.requires_grad_()
print(f"after requires_grad_(): is_leaf={scaled.is_leaf}")
print(f"grad_fn={scaled.grad_fn.name()}")
# requires_grad_(False) would take it out of its graph: refused
scaled.requires_grad_(False)
