import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(8, 3)
lin, skip, lin2 = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)

# 1. nn.ReLU() instead of nn.ReLU(inplace=True)
h = lin(x)
(skip(h) + nn.ReLU()(h)).sum().backward()
print("1. nn.ReLU(): backward() ran")

# 2. h = h + ... instead of h += ...
h = lin(x)
h = h + lin2(h)
h.sum().backward()
print("2. h = h + ...: backward() ran")

# 3. every backward() through this forward pass, then optimizer.step()
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
out = model(x)
(out.mean() + out.pow(2).mean()).backward()
opt.step()
print("3. optimizer.step() after backward(): ran")
