import torch

w = torch.tensor(1.0, requires_grad=True)


def show(grad):
    print(f"  register_hook: grad={grad}, w.grad={w.grad}")


w.register_hook(show)

for step in range(2):
    print(f"backward {step}:")
    (2 * w).backward()
    print(f"  after backward: w.grad={w.grad}")
