import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# three outputs, not one number
y = x * x

# how much each output counts; ones give d(y.sum())/dx
y.backward(gradient=torch.ones_like(y))
print("with gradient=ones:", x.grad)

x.grad = None
y = x * x
# no gradient=, and y has more than one element
y.backward()
