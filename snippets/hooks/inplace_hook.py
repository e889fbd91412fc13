import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3                      # b = 6
b.register_hook(lambda grad: print("hook registered before the in-place change gets", grad))
b.mul_(2)                      # b = 12 now; d(new b)/d(old b) = 2
b.register_hook(lambda grad: print("hook registered after it gets", grad))
b.retain_grad()                # retain_grad keeps the gradient of the new b
(b * 5).backward()
print("b.grad:", b.grad, " a.grad:", a.grad)
