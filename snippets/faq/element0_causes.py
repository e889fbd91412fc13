import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(8, 4), torch.randn(8, 1)


def mse(out):
    return (out - y).pow(2).mean()


def try_backward(cause, loss):
    try:
        loss.backward()
        print(f"{cause}: backward() ran")
    except RuntimeError as error:
        print(f"{cause}: {error}")


with torch.no_grad():
    try_backward("1. under no_grad()", mse(model(x)))

# a weight made without requires_grad=True
w = torch.randn(4, 1)
try_backward("2. nothing requires grad", mse(x @ w))

try_backward("3. detach()", mse(model(x).detach()))

frozen = nn.Linear(4, 1).requires_grad_(False)
try_backward("4. a frozen model", mse(frozen(x)))

value = mse(model(x)).item()
try_backward("5. .item()", torch.tensor(value))

out = model(x).detach().numpy()
error = np.square(out - y.numpy()).mean()
try_backward("5. numpy", torch.tensor(error))

# not a cause: eval() changes layers such as dropout, not grad mode
model.eval()
try_backward("model.eval()", mse(model(x)))
