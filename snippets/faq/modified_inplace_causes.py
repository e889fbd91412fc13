import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(8, 3)
lin, skip, lin2 = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def relu_inplace():
    h = lin(x)
    # skip saves h for its backward; the ReLU then overwrites h
    return (skip(h) + nn.ReLU(inplace=True)(h)).sum()


def plus_equals():
    h = lin(x)
    # lin2 saves h; h += ... then overwrites it
    h += lin2(h)
    return h.sum()


def step_between():
    out = model(x)
    out.mean().backward(retain_graph=True)
    # the step writes, in place, weights the graph saved
    opt.step()
    return out.pow(2).mean()


for cause, forward in [
    ("1. nn.ReLU(inplace=True)", relu_inplace),
    ("2. h += ...", plus_equals),
    ("3. optimizer.step() in between", step_between),
]:
    try:
        forward().backward()
        print(f"{cause}: backward() ran")
    except RuntimeError as error:
        print(f"{cause}: {str(error).split(':')[0]}")
