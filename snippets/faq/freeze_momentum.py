import torch
import torch.nn as nn


def after_freezing(set_to_none):
    """p after one step, a freeze, then three more steps."""
    p = nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD(
        [p], lr=0.1, momentum=0.9, weight_decay=0.01
    )
    (3 * p).sum().backward()
    opt.step()
    p.requires_grad_(False)
    frozen_at = p.detach().clone()
    for _ in range(3):
        opt.zero_grad(set_to_none=set_to_none)
        opt.step()
    return frozen_at, p.grad, p.detach()


for set_to_none in (False, True):
    frozen_at, grad, now = after_freezing(set_to_none)
    print(f"zero_grad(set_to_none={set_to_none}):")
    print(f"  p.grad: {grad}")
    print(f"  frozen at {frozen_at[0]:.4f}, now {now[0]:.4f}")
