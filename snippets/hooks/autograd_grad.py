import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1

# returned to you, stored nowhere
(dc_db,) = torch.autograd.grad(c, b)
print("dc/db:", dc_db)
# autograd.grad fills no leaf's .grad
print("a.grad:", a.grad)
