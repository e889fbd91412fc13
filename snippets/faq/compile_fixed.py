import torch
import torch.nn as nn

# check module hooks before reusing what was compiled
torch._dynamo.config.skip_nnmodule_hook_guards = False


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.l2(self.l1(x).relu())


# instead of storing the activation and calling retain_grad():
# a forward hook, registered before compiling, hooks the tensor
def hook_l1_output(module, inputs, output):
    output.register_hook(lambda grad: seen.update(l1_output=grad))


torch.manual_seed(0)
x, seen, fired = torch.randn(3, 4), {}, []
net = Net()
handle = net.l1.register_forward_hook(hook_l1_output)
compiled = torch.compile(net, backend="aot_eager")
compiled(x).sum().backward()
got = seen["l1_output"]

# a module hook added after the first compiled call
net.l2.register_full_backward_hook(lambda *args: fired.append("l2"))
compiled(x).sum().backward()
print("hook added later fired:", fired)

# eager, without the hook, to check the value the hook saw
handle.remove()
h = net.l1(x)
(expected,) = torch.autograd.grad(net.l2(h.relu()).sum(), [h])
print("the hook saw d loss / d l1 output:",
      torch.allclose(got, expected))
