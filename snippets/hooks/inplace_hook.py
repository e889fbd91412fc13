import torch

a = torch.tensor(2.0, requires_grad=True)
# b = 6
b = a * 3
b.register_hook(lambda grad: print(
    "hook registered before the in-place change gets", grad))
# b = 12 now; d(new b)/d(old b) = 2
b.mul_(2)
b.register_hook(
    lambda grad: print("hook registered after it gets", grad))
# retain_grad keeps the gradient of the new b
b.retain_grad()
(b * 5).backward()
print("b.grad:", b.grad, " a.grad:", a.grad)
