import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)

# 1, 3, 5: the loss you train on, computed with grad mode on,
# from the model's output itself, with torch operations only
loss = (model(x) - y).pow(2).mean()
print(f"loss.grad_fn: {loss.grad_fn.name()}")
loss.backward()
print(f"model.weight.grad is None: {model.weight.grad is None}")

# 2: a weight of your own asks for its gradient when created
w = torch.randn(4, 1, requires_grad=True)
(x @ w - y).pow(2).mean().backward()
print(f"w.grad is None: {w.grad is None}")

# 4: a model frozen for fine-tuning needs one trainable part
frozen = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
frozen.requires_grad_(False)
frozen[1].requires_grad_(True)
(frozen(x) - y).pow(2).mean().backward()
named = frozen.named_parameters()
trained = [n for n, p in named if p.grad is not None]
print(f"parameters with a .grad: {trained}")

# logging: .item() on a copy of the value, after the loss is built
print(f"loss for the log: {loss.item():.4f}")
