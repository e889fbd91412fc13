import torch

w = torch.randn(4, requires_grad=True)
# the meta device keeps shapes, no data: here it stands in
# for a GPU, which this machine does not have
moved = w.to("meta")
print(moved.device, moved.is_leaf, moved.grad_fn.name())
