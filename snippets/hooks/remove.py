import torch

a = torch.tensor(2.0, requires_grad=True)
handle = a.register_hook(lambda grad: print("hook saw", grad))

(a * 3).backward()
handle.remove()
# the hook is gone: nothing printed
(a * 3).backward()
print("a.grad:", a.grad)
