import torch

a = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    a.grad = None
    b = a * 3
    b.retain_grad()    # you want b's gradient: ask for it before backward
    (b * b).backward()
    print(f"step {step}: b.grad = {b.grad}  a.grad = {a.grad}")  # a is the leaf: no warning
