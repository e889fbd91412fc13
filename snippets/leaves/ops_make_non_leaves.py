import torch
from torch import float64, nn

w = torch.randn(2, 2, requires_grad=True)
made = {
    "w": w, "nn.Parameter": nn.Parameter(torch.ones(2)),
    # computed from tensors that need no grad
    "ones(2) * 2": torch.ones(2) * 2,
    "w.to(float64)": w.to(float64), "w.view(4)": w.view(4),
    "w.reshape(4)": w.reshape(4), "w[:1]": w[:1],
    "w * 0.01": w * 0.01, 'w.to("cpu")': w.to("cpu"),
}
print("code           is_leaf  grad_fn")
for code, t in made.items():
    fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{code:13}  {t.is_leaf!s:7}  {fn}")
print('w.to("cpu") is w:', made['w.to("cpu")'] is w)
