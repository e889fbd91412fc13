import torch

w = torch.randn(4, requires_grad=True)

made = {
    "w.to(torch.float64)": w.to(torch.float64),
    "w.view(2, 2)": w.view(2, 2),
    "w.reshape(2, 2)": w.reshape(2, 2),
    "w[:2]": w[:2],
    "w * 0.01": w * 0.01,
    'w.to("cpu")': w.to("cpu"),
}
for code, t in made.items():
    fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{code:19}  is_leaf={t.is_leaf!s:5}  {fn!s:15}"
          f"  is w: {t is w}")
