import torch
import torch.nn as nn


def kept(total):
    """Backward nodes reachable from total, and the elements of
    the tensors they still save."""
    seen, todo, elements = set(), [total.grad_fn], 0
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo += [nxt for nxt, _ in node.next_functions]
        for name in dir(node):
            if name.startswith("_saved_"):
                try:
                    value = getattr(node, name)
                except RuntimeError:
                    # freed by backward()
                    continue
                if isinstance(value, torch.Tensor):
                    elements += value.numel()
    return f"{len(seen):4} nodes {elements:8} saved"


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))
print("training loop, total += loss:")
total = 0
for step in range(1, 101):
    model.zero_grad()
    loss = model(torch.randn(256, 8)).pow(2).mean()
    loss.backward()
    total += loss
    if step in (1, 10, 100):
        print(f"  step {step:3}: {kept(total)}")

print("evaluation loop, total += loss:")
total = 0
for step in range(1, 101):
    loss = model(torch.randn(256, 8)).pow(2).mean()
    total += loss
    if step in (1, 10, 100):
        print(f"  step {step:3}: {kept(total)}")
