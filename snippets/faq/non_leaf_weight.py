import torch

torch.manual_seed(0)
# stands in for "cuda": this build machine has no GPU
device = "meta"

w = torch.randn(3, requires_grad=True).to(device)
print("after .to(device):", "is_leaf =", w.is_leaf,
      " grad_fn =", w.grad_fn.name())

w = torch.randn(3, requires_grad=True) * 0.01
print("after * 0.01:     ", "is_leaf =", w.is_leaf,
      " grad_fn =", w.grad_fn.name())

loss = (w ** 2).sum()
loss.backward()
print("w.grad:", w.grad)

# the leaf that randn made, reached through the graph
leaf = w.grad_fn.next_functions[0][0].variable
print("the leaf behind w:", "is_leaf =", leaf.is_leaf,
      " grad =", leaf.grad)
