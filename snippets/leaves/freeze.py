import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for p in model[0].parameters():            # freeze the first layer: fine-tune only the last
    p.requires_grad_(False)
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)

loss = model(torch.randn(16, 4)).pow(2).mean()
loss.backward()
for name, p in model.named_parameters():
    print(f"{name:8} is_leaf={p.is_leaf} requires_grad={p.requires_grad!s:5} grad is None: {p.grad is None}")
print("optimizer updates", sum(p.numel() for g in optimizer.param_groups for p in g["params"]), "numbers")
