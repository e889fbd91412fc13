import torch
import torch.nn as nn

torch.manual_seed(0)
layers = [nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 2)]
model = nn.Sequential(*layers)
x = torch.randn(3, 4)
seen = {}


def hook_output(module, inputs, output):
    # a forward hook: runs after module.forward and hooks its output;
    # under no_grad() the output requires no grad and takes no hook
    if output.requires_grad:
        output.register_hook(
            lambda grad: seen.setdefault("grad_output", grad)
        )


handle = model[0].register_forward_hook(hook_output)
# the in-place ReLU is fine now
model(x).sum().backward()
# an evaluation pass with the hook still registered
with torch.no_grad():
    model(x)
handle.remove()

# check: d loss / d output, computed without the in-place ReLU
h = model[0](x)
out = model[2](torch.relu(h)).sum()
(expected,) = torch.autograd.grad(out, [h])
same = torch.equal(seen["grad_output"], expected)
print("hook's gradient equals d loss / d output:", same)
print(seen["grad_output"][0])
