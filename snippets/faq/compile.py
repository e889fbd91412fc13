import torch
import torch.nn as nn

# Dynamo + AOTAutograd, as with the default "inductor",
# minus its slow kernel code generation
BACKEND = "aot_eager"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        h = self.l1(x).relu()
        # kept to read its gradient after backward, Grad-CAM style
        self.act = h
        return self.l2(h)


# a forward hook that hooks the output tensor
def hook_l1_output(module, inputs, output):
    output.register_hook(lambda grad: seen.update(l1_output=grad))


def append_to(names, name):
    return lambda *args: names.append(name)


torch.manual_seed(0)
x = torch.randn(3, 4)
fired, seen = [], {}

print("1. Hooks registered before compiling, "
      "and hooks on the compiled model's output")
net = Net()
net.l2.weight.register_hook(append_to(fired, "parameter hook"))
net.l2.bias.register_post_accumulate_grad_hook(
    append_to(fired, "post-accumulate hook")
)
net.l1.register_forward_hook(hook_l1_output)
compiled = torch.compile(net, backend=BACKEND)
out = compiled(x)
out.retain_grad()
out.register_hook(append_to(fired, "hook on the output"))
net.act.retain_grad()
out.sum().backward()
print("  fired:", fired, "| out.grad is None:", out.grad is None)
got = seen["l1_output"]
# eager, to check the value the tensor hook saw (the forward hook
# hooks h too, and would overwrite seen: got was taken before)
h = net.l1(x)
(expected,) = torch.autograd.grad(net.l2(h.relu()).sum(), [h])
same = torch.allclose(got, expected)
print("  the tensor hook saw d loss / d l1 output:", same)

print("2. retain_grad() on a tensor kept from inside the compiled "
      "forward")
print("  net.act.grad is None:", net.act.grad is None,
      "| net.act.grad_fn:", net.act.grad_fn.name())

print("3. Module hooks added after the first compiled call")
later = []
net.l2.register_forward_hook(append_to(later, "forward"))
net.l2.register_full_backward_hook(append_to(later, "backward"))
compiled(x).sum().backward()
print("  compiled call:", later)
net(x).sum().backward()
print("  eager call:   ", later)
print("  torch._dynamo.config.skip_nnmodule_hook_guards:",
      torch._dynamo.config.skip_nnmodule_hook_guards)

print("4. A second Net, with a full backward hook registered before "
      "compiling it")
later = []
second = Net()
hook = append_to(later, "backward hook")
second.l2.register_full_backward_hook(hook)
torch.compile(second, backend=BACKEND)(x).sum().backward()
print("  compiled call:", later)


def f(x, w):
    h = x * w
    # replace the gradient at h
    h.register_hook(lambda grad: torch.ones_like(grad))
    h.retain_grad()
    return h.sin().sum(), h


print("5. A hook, then retain_grad(), on one tensor inside compiled "
      "code")
x0 = x[0, :3]
runs = [("eager", f), ("compiled", torch.compile(f, backend=BACKEND))]
for name, fn in runs:
    w = torch.ones(3, requires_grad=True)
    loss, h = fn(x0, w)
    loss.backward()
    w_is_x = torch.equal(w.grad, x0)
    print(f"  {name} h.grad:")
    print(f"  {h.grad}")
    print(f"  {name} w.grad == x: {w_is_x}")
before_hook = torch.allclose(h.grad, x0.cos())
print("  the compiled h.grad is cos(h), the gradient before the "
      "hook:", before_hook)

print("6. 3 and 4 again, with guards on module hooks")
torch._dynamo.config.skip_nnmodule_hook_guards = False
# drop what was compiled without those guards
torch.compiler.reset()
later = []
net, second = Net(), Net()
compiled = torch.compile(net, backend=BACKEND)
compiled(x).sum().backward()
net.l2.register_forward_hook(append_to(later, "hook added later"))
compiled(x).sum().backward()
hook = append_to(later, "second's hook")
second.l2.register_full_backward_hook(hook)
torch.compile(second, backend=BACKEND)(x).sum().backward()
print("  compiled calls:", later)
