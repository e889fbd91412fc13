import torch

torch.manual_seed(0)
# create the leaf with the shape you use...
w = torch.randn(2, 2, requires_grad=True)
(w ** 2).sum().backward()
print("w.grad:", w.grad)

# ...or keep a name for the leaf and read .grad there (its shape)
flat = torch.randn(4, requires_grad=True)
square = flat.view(2, 2)
(square ** 2).sum().backward()
print("flat.grad:", flat.grad)
print("as 2x2:", flat.grad.view(2, 2))
