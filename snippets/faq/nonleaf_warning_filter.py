import warnings

import torch

# last resort, for code you cannot change: ignore this warning only
warnings.filterwarnings(
    "ignore",
    message=r"The \.grad attribute of a Tensor that is not a leaf",
    category=UserWarning,
)

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
(b * b).backward()
# silenced
print("b.grad:", b.grad)
# still shown
warnings.warn("some other UserWarning", stacklevel=1)
