import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1

(dc_db,) = torch.autograd.grad(c, b)   # returned to you, stored nowhere
print("dc/db:", dc_db)
print("a.grad:", a.grad)               # autograd.grad fills no leaf's .grad
