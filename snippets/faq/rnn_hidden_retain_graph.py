import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(2, 3)
h = torch.zeros(1, 3)

for step in range(3):
    h = cell(torch.randn(1, 2), h)
    loss = h.pow(2).sum()
    cell.zero_grad()
    # what the error message suggests
    loss.backward(retain_graph=True)
    with torch.no_grad():
        for p in cell.parameters():
            p -= 0.1 * p.grad
    print(f"step {step}: loss {loss.item():.4f}")
