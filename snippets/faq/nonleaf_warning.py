import torch

a = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    b = a * 3          # an intermediate
    (b * b).backward()
    print(f"step {step}: b.grad = {b.grad}")
