import warnings

import torch

x = torch.tensor(3.0, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(2):
        x.grad = None
        (x**3).backward(create_graph=True)
print(f"{len(caught)} warning for 2 calls:")
for w in caught:
    print(f"{w.category.__name__}: {w.message}")

# x.grad is in a graph that leads back to x itself
print(f"x.grad = {x.grad.item()}, grad_fn: {x.grad.grad_fn.name()}")
print(f"x.grad requires grad: {x.grad.requires_grad}")
second = x.grad
# break the cycle before differentiating again
x.grad = None
second.backward()
print(f"d2/dx2 x^3 at 3 = {x.grad.item()}")
x.grad = None
