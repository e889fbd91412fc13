import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
c = b + 1


def show(node, depth=0):
    print("  " * depth + node.name())
    for child, _ in node.next_functions:
        if child is not None:
            show(child, depth + 1)


show(c.grad_fn)
print(a.grad_fn, b.grad_fn.name(), c.grad_fn.name())
