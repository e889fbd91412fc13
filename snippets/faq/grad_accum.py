import torch
import torch.nn as nn


def grad_after(steps):
    """The weight's .grad after one update's worth of backward()."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    steps(model, x, y)
    return model.weight.grad


def full_batch(model, x, y):
    nn.functional.mse_loss(model(x), y).backward()


def unscaled(model, x, y):
    model.zero_grad()
    pairs = zip(x.chunk(4), y.chunk(4), strict=True)
    for xb, yb in pairs:
        nn.functional.mse_loss(model(xb), yb).backward()


def zeroed_each_time(model, x, y):
    pairs = zip(x.chunk(4), y.chunk(4), strict=True)
    for xb, yb in pairs:
        model.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        (loss / 4).backward()


def scaled_zeroed_once(model, x, y):
    model.zero_grad()
    pairs = zip(x.chunk(4), y.chunk(4), strict=True)
    for xb, yb in pairs:
        loss = nn.functional.mse_loss(model(xb), yb)
        (loss / 4).backward()


target = grad_after(full_batch)
print(f"{'4 micro-batches of 2':>22} | = batch of 8")
for steps in (unscaled, zeroed_each_time, scaled_zeroed_once):
    same = torch.allclose(grad_after(steps), target)
    print(f"{steps.__name__:>22} | {same}")
