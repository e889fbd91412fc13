import torch

a = torch.tensor(2.0, requires_grad=True)   # a leaf
b = a * 3                                    # an intermediate: b.grad_fn is MulBackward0
c = b * b

b.register_hook(lambda grad: print(f"1. b's tensor hook gets {grad}") or grad * 10)
b.retain_grad()                              # registered second, stored after every tensor hook
b.register_hook(lambda grad: print(f"2. b's second tensor hook gets {grad}"))
b.grad_fn.register_prehook(lambda grad_outputs: print(f"3. b.grad_fn pre-hook gets {grad_outputs[0]}"))
b.grad_fn.register_hook(lambda grad_in, grad_out: print(f"4. b.grad_fn hook sends {grad_in[0]} to a"))
a.register_hook(lambda grad: print(f"5. a's tensor hook gets {grad}"))
a.register_post_accumulate_grad_hook(lambda t: print(f"6. a's post-accumulate hook sees a.grad = {t.grad}"))

c.backward()
print("b.grad:", b.grad, " a.grad:", a.grad)
