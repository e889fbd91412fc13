import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x                          # three outputs, not one number

y.backward(gradient=torch.ones_like(y))   # the weights of each output: here d(y.sum())/dx
print("with gradient=ones:", x.grad)

x.grad = None
y = x * x
y.backward()                       # no gradient= for a non-scalar output
