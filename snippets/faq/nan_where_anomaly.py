import warnings

import torch

a = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True, check_nan=True):
        y = torch.where(a > 0, a.log(), 0)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"RuntimeError: {error}")
for w in caught:
    # its first line; the rest is the forward's traceback
    print(f"{w.category.__name__}: {str(w.message).splitlines()[0]}")
