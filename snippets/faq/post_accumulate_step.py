import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
names = {p: name for name, p in model.named_parameters()}
lr = 0.1


def step(p):
    # called once p.grad holds this backward pass's full gradient:
    # update p and free its .grad
    with torch.no_grad():
        p -= lr * p.grad
    p.grad = None
    print("stepped", names[p])


for p in model.parameters():
    p.register_post_accumulate_grad_hook(step)

before = [p.detach().clone() for p in model.parameters()]
model(torch.randn(16, 4)).pow(2).mean().backward()
pairs = zip(before, model.parameters(), strict=True)
changed = [not torch.equal(b, p) for b, p in pairs]
print("every parameter changed:", all(changed),
      "| grads kept:", [p.grad for p in model.parameters()])
