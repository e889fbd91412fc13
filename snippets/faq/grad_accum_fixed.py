import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
nn.functional.mse_loss(model(x), y).backward()
full_batch = model.weight.grad.clone()

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 1)
micro = 4
# once per update, before its micro-batches
opt.zero_grad()
pairs = zip(x.chunk(micro), y.chunk(micro), strict=True)
for xb, yb in pairs:
    loss = nn.functional.mse_loss(model(xb), yb)
    # each micro-batch's mean counts 1/micro of the batch's
    (loss / micro).backward()
print("same as one batch of 8:",
      torch.allclose(model.weight.grad, full_batch))
# once per update, after its micro-batches
opt.step()
