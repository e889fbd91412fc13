import torch

a = torch.tensor(2.0, requires_grad=True)   # a leaf
b = a * 3                                    # an intermediate, made by b.grad_fn
c = b * b


def times_ten(grad):
    print("1. b's first tensor hook gets", grad)
    return grad * 10                         # replaces the gradient from here on


b.register_hook(times_ten)
b.retain_grad()                              # called between b's two tensor hooks
b.register_hook(lambda grad: print("2. b's second tensor hook gets", grad))
b.grad_fn.register_prehook(lambda received: print("3. b.grad_fn's pre-hook gets", received[0]))
b.grad_fn.register_hook(lambda sent, received: print("4. b.grad_fn's hook sends", sent[0]))
a.register_hook(lambda grad: print("5. a's tensor hook gets", grad))
a.register_post_accumulate_grad_hook(lambda t: print("6. a's post-accumulate hook sees", t.grad))

c.backward()
print("b.grad:", b.grad, " a.grad:", a.grad)
