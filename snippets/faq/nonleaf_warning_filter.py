import warnings

import torch

# Last resort, for code you cannot change: ignore exactly this warning, nothing else.
warnings.filterwarnings(
    "ignore",
    message=r"The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed",
    category=UserWarning,
)

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
(b * b).backward()
print("b.grad:", b.grad)                                # silenced
warnings.warn("some other UserWarning", stacklevel=1)  # still shown
