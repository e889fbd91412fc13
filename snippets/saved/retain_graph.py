import torch

a = torch.tensor(2.0, requires_grad=True)
b = a.exp()
b.backward(retain_graph=True)
# the saved result is still held by b.grad_fn
print("kept:", b.grad_fn._saved_result.item())
b.backward()
# now it is freed: reading it raises
try:
    print(b.grad_fn._saved_result)
except RuntimeError as error:
    print("freed:")
    print(str(error).split(" (")[0])
