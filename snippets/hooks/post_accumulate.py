import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
lr = 0.1


def step(param):
    # runs once param.grad holds its final value for this pass
    with torch.no_grad():
        param -= lr * param.grad
    param.grad = None
    print("stepped a parameter of shape", tuple(param.shape))


for p in model.parameters():
    p.register_post_accumulate_grad_hook(step)

before = model.weight.detach().clone()
loss = model(torch.randn(8, 3)).pow(2).mean()
loss.backward()
print("weights changed:", not torch.equal(before, model.weight),
      "| weight.grad:", model.weight.grad)
