import torch

a = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    # an intermediate
    b = a * 3
    (b * b).backward()
    print(f"step {step}: b.grad = {b.grad}")
