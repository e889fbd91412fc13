import torch
import torch.nn as nn

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = (b * b).sum()
print(f"b.is_leaf={b.is_leaf}")
print(f"before: b.retains_grad={b.retains_grad}")
c.backward(inputs=[b], retain_graph=True)
print(f"after:  b.retains_grad={b.retains_grad}")
print(f"b.grad = {b.grad}, a.grad = {a.grad}")
# b now keeps its gradient in later passes too
c.backward()
print(f"b.grad = {b.grad}, a.grad = {a.grad}")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1))
loss = model(torch.randn(5, 3)).pow(2).mean()
# gradients for the last layer only
loss.backward(inputs=list(model[1].parameters()))
for name, p in model.named_parameters():
    print(f"{name}: has .grad: {p.grad is not None}")
