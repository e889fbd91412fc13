import torch

# class labels are integers
labels = torch.tensor([0, 2, 1], requires_grad=True)
