import torch

w = torch.randn(3, requires_grad=True)
with torch.no_grad():
    outside = w * 2
    # one computation that must be recorded, inside no_grad()
    with torch.enable_grad():
        inside = w * 2
    after = inside * 2
print(f"outside: requires_grad={outside.requires_grad}")
print(f"inside:  grad_fn={inside.grad_fn.name()}")
print(f"after:   requires_grad={after.requires_grad}")
inside.sum().backward()
print(f"w.grad: {w.grad}")

# inference_mode() is not undone by enable_grad()
with torch.inference_mode():
    with torch.enable_grad():
        y = w * 2
        print(f"grad mode on: {torch.is_grad_enabled()}")
print(f"under inference_mode: requires_grad={y.requires_grad}")
# inference_mode(False), nested inside it, does
with torch.inference_mode():
    with torch.inference_mode(False):
        z = w * 2
print(f"under inference_mode(False): grad_fn={z.grad_fn.name()}")
