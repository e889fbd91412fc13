import torch

# a leaf: you created it
a = torch.tensor(2.0, requires_grad=True)
# intermediates: computed from a
b = a * 3
c = b + 1
c.backward()

for name, t in {"a": a, "b": b, "c": c}.items():
    print(name, "is_leaf:", t.is_leaf, " grad:", t.grad)
