from torch import tensor

# class labels are integers
ids = [0, 2, 1]
y = tensor(ids, requires_grad=True)
