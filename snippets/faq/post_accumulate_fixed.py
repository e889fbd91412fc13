import torch

w = torch.tensor(1.0, requires_grad=True)
w.register_post_accumulate_grad_hook(
    lambda p: print(f"  post-accumulate hook: w.grad={p.grad}")
)

for step in range(2):
    print(f"backward {step}:")
    (2 * w).backward()
