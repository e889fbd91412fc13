import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1

a.register_hook(lambda grad: print("a's hook"))
b.register_hook(lambda grad: print("b's first hook"))
b.register_hook(lambda grad: print("b's second hook"))
c.register_hook(lambda grad: print("c's hook"))
c.backward()
