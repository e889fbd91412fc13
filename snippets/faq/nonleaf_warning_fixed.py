import torch

a = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    a.grad = None
    b = a * 3
    # you want b's gradient: ask for it before backward
    b.retain_grad()
    (b * b).backward()
    # a is the leaf: no warning
    print(f"step {step}: b.grad = {b.grad}  a.grad = {a.grad}")
