import torch

# a leaf
a = torch.tensor(2.0, requires_grad=True)
# an intermediate, made by b.grad_fn
b = a * 3
c = b * b


def times_ten(grad):
    print("1. b's first tensor hook gets", grad)
    # replaces the gradient from here on
    return grad * 10


def show(label):
    return lambda *args: print(label, args[0])


b.register_hook(times_ten)
# called between b's two tensor hooks
b.retain_grad()
b.register_hook(show("2. b's second tensor hook gets"))
b.grad_fn.register_prehook(
    lambda received: print("3. b.grad_fn's pre-hook gets",
                           received[0]))
b.grad_fn.register_hook(
    lambda sent, received: print("4. b.grad_fn's hook sends",
                                 sent[0]))
a.register_hook(show("5. a's tensor hook gets"))
a.register_post_accumulate_grad_hook(
    lambda t: print("6. a's post-accumulate hook sees", t.grad))

c.backward()
print("b.grad:", b.grad, " a.grad:", a.grad)
