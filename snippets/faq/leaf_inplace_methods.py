import torch

# Every public in-place method of Tensor, on a fresh leaf that
# requires grad, with grad mode on. Each is called with the first
# of these argument lists it accepts.
ARGUMENTS = [(), (torch.ones(3),), (1,), (0.5,)]
LEAF_ERROR = "a leaf Variable that requires grad"

raised, changed, unchanged, other = [], [], [], []
names = [
    n for n in dir(torch.Tensor)
    if n.endswith("_") and not n.startswith("_")
]
for name in sorted(names):
    for args in ARGUMENTS:
        w = torch.full((3,), 0.5, requires_grad=True)
        try:
            getattr(w, name)(*args)
        except Exception as error:
            if str(error).startswith(LEAF_ERROR):
                raised.append(name)
                break
            continue
        # the version counter moves on every in-place write
        if w._version:
            changed.append((name, w.is_leaf and w.grad_fn is None))
        else:
            unchanged.append(name)
        break
    else:
        other.append(name)

print(f"in-place methods tried: {len(names)}")
print(f"raise the leaf error:   {len(raised)}")
print(f"another error:          {len(other)}")
print("change the leaf, no error:")
for name, leaf in changed:
    print(f"  {name:<13} still a leaf: {leaf}")
print("run, leaf unchanged:")
for name in unchanged:
    print(f"  {name}")
w = torch.full((3,), 0.5, requires_grad=True)
w.logical_not_()
print(f"after logical_not_: {w.detach()}")
