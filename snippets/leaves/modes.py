import torch
from torch import nn

model = nn.Linear(3, 1)
x = torch.randn(2, 3)


def show(label, out):
    print(f"{label:16}  {out.is_leaf!s:7}  {out.requires_grad}")


print(f"{'output of':16}  is_leaf  requires_grad")
show("normal", model(x))
# changes dropout and batch norm, not autograd
model.eval()
show("model.eval()", model(x))
with torch.no_grad():
    show("torch.no_grad()", model(x))
with torch.inference_mode():
    out = model(x)
show("inference_mode()", out)
print("out.is_inference():", out.is_inference())
print("weight.grad after all four:", model.weight.grad)
