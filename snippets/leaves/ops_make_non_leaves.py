import torch

w = torch.randn(4, requires_grad=True)  # a leaf

made = {
    "w.to(torch.float64)": w.to(torch.float64),  # a dtype change is a copy
    'w.to("meta")': w.to("meta"),                # so is a device change, like .cuda()
    "w.view(2, 2)": w.view(2, 2),
    "w.reshape(2, 2)": w.reshape(2, 2),
    "w[:2]": w[:2],
    "w * 0.01": w * 0.01,
    'w.to("cpu")': w.to("cpu"),                  # already there: returns w itself
}
for expression, t in made.items():
    grad_fn = t.grad_fn.name() if t.grad_fn is not None else None
    print(f"{expression:20} is_leaf={t.is_leaf!s:5}  grad_fn={grad_fn}  same object as w: {t is w}")
