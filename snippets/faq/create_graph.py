import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**3
# dy/dx = 3x^2 is itself a function of x: keep its graph
(dy,) = torch.autograd.grad(y, x, create_graph=True)
print(f"dy/dx = {dy.item()}, grad_fn: {dy.grad_fn.name()}")
(d2y,) = torch.autograd.grad(dy, x)
print(f"d2y/dx2 = {d2y.item()}")

# without create_graph=True the gradient is a plain value
(plain,) = torch.autograd.grad(x**3, x)
print(f"without create_graph: grad_fn={plain.grad_fn}")
torch.autograd.grad(plain, x)
