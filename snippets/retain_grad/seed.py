import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
# tell autograd to keep b's gradient
b.retain_grad()
c = b + 1
c.backward()

# now available
print(b.grad)
