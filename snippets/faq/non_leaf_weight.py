import torch

torch.manual_seed(0)
# stands in for "cuda": this build machine has no GPU
device = "meta"


def show(label, w):
    print(f"{label:11}  {w.is_leaf!s:7}  {w.grad_fn.name()}")


print(f"{'w after':11}  is_leaf  grad_fn")
w = torch.randn(3, requires_grad=True).to(device)
show(".to(device)", w)

w = torch.randn(3, requires_grad=True) * 0.01
show("* 0.01", w)

loss = (w ** 2).sum()
loss.backward()
print("w.grad:", w.grad)

# the leaf that randn made, reached through the graph
leaf = w.grad_fn.next_functions[0][0].variable
print("the leaf behind w:", "is_leaf =", leaf.is_leaf,
      " grad =", leaf.grad)
