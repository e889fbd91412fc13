import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 2))
x = torch.randn(3, 4)
seen = {}


def hook_output(module, inputs, output):
    # A forward hook: runs after module.forward, and hooks the output tensor itself.
    output.register_hook(lambda grad: seen.setdefault("grad_output", grad))


handle = model[0].register_forward_hook(hook_output)
model(x).sum().backward()  # the in-place ReLU is fine now
handle.remove()

# Check: the gradient with respect to the first layer's output, computed without the in-place ReLU.
h = model[0](x)
(expected,) = torch.autograd.grad(model[2](torch.relu(h)).sum(), [h])
print("hook's gradient equals d loss / d output:", torch.equal(seen["grad_output"], expected))
print(seen["grad_output"][0])
