import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
# freeze the first layer: fine-tune only the last
for p in model[0].parameters():
    p.requires_grad_(False)
trained = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trained, lr=0.1)

loss = model(torch.randn(16, 4)).pow(2).mean()
loss.backward()
# the grad column: None, or the gradient's shape
print("name      is_leaf  requires_grad  grad")
for name, p in model.named_parameters():
    grad = None if p.grad is None else tuple(p.grad.shape)
    flags = f"{p.is_leaf!s:7}  {p.requires_grad!s:13}"
    print(f"{name:8}  {flags}  {grad}")
groups = optimizer.param_groups
n = sum(p.numel() for g in groups for p in g["params"])
print("optimizer updates", n, "numbers")

# frozen after a backward pass, a parameter keeps its old .grad,
# and an optimizer given it still steps it
w = nn.Parameter(torch.ones(2))
w.sum().backward()
w.requires_grad_(False)
torch.optim.SGD([w], lr=0.1).step()
print("frozen with an old .grad, after step():", w.data)
