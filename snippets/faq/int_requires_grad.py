import torch

x = torch.randn(4, requires_grad=True)
# argmax returns an integer index
index = x.argmax()
print(f"{index.dtype}, requires_grad={index.requires_grad}")
index.requires_grad_()
