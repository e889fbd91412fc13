import torch

w = torch.tensor(1.0, requires_grad=True)
w.register_hook(lambda grad: print(f"  register_hook: grad={grad}, w.grad={w.grad}"))

for step in range(2):
    print(f"backward {step}:")
    (2 * w).backward()
    print(f"  after backward: w.grad={w.grad}")
