import torch

# Every public in-place method of Tensor, on a fresh leaf that
# requires grad, with grad mode on. Each is called with the first
# of these argument lists it accepts, or with its own valid ones.
ARGUMENTS = [(), (torch.ones(3),), (1,), (0.5,)]
i, m = torch.tensor([0, 2]), torch.tensor([True, False, True])
# name: (the leaf's shape, valid arguments)
OWN = {
    "addbmm_": (
        (3, 3), (torch.ones(2, 3, 1), torch.ones(2, 1, 3))
    ),
    "addcdiv_": ((3,), (torch.ones(3), torch.ones(3))),
    "addcmul_": ((3,), (torch.ones(3), torch.ones(3))),
    "addmm_": ((3, 3), (torch.ones(3, 3), torch.ones(3, 3))),
    "addmv_": ((3,), (torch.ones(3, 3), torch.ones(3))),
    "addr_": ((3, 3), (torch.ones(3), torch.ones(3))),
    "apply_": ((3,), (lambda v: v,)),
    "as_strided_": ((3,), ((2,), (1,))),
    "baddbmm_": (
        (2, 3, 3), (torch.ones(2, 3, 1), torch.ones(2, 1, 3))
    ),
    "fill_diagonal_": ((3, 3), (0.0,)),
    "float_power_": ((3,), (2,)),
    "index_add_": ((3,), (0, i, torch.ones(2))),
    "index_copy_": ((3,), (0, i, torch.ones(2))),
    "index_fill_": ((3,), (0, i, 1.0)),
    "index_put_": ((3,), ((i,), torch.ones(2))),
    "index_reduce_": ((3,), (0, i, torch.ones(2), "amax")),
    "lerp_": ((3,), (torch.ones(3), 0.5)),
    "map2_": ((3,), (torch.ones(3), torch.ones(3), lambda *v: v[0])),
    "map_": ((3,), (torch.ones(3), lambda a, b: a)),
    "masked_fill_": ((3,), (m, 1.0)),
    "masked_scatter_": ((3,), (m, torch.ones(3))),
    "put_": ((3,), (i, torch.ones(2))),
    "renorm_": ((3, 3), (2, 0, 1.0)),
    "resize_": ((3,), ((3,),)),
    "resize_as_": ((3,), (torch.ones(3),)),
    "scatter_": ((3,), (0, i, 1.0)),
    "scatter_add_": ((3,), (0, i, torch.ones(2))),
    "scatter_reduce_": ((3,), (0, i, torch.ones(2), "sum")),
    "sparse_resize_": ((3,), ((3,), 1, 0)),
    "sparse_resize_and_clear_": ((3,), ((3,), 1, 0)),
    "swapaxes_": ((3, 3), (0, 1)),
    "swapdims_": ((3, 3), (0, 1)),
    "transpose_": ((3, 3), (0, 1)),
}
# in both wordings, "a leaf Variable" and "a view of a leaf Variable"
LEAF_ERROR = "leaf Variable that requires grad"

raised, changed, unchanged, other = [], [], [], []
names = [
    n for n in dir(torch.Tensor)
    if n.endswith("_") and not n.startswith("_")
]
for name in sorted(names):
    shape, own = OWN.get(name, ((3,), None))
    for args in [own] if own else ARGUMENTS:
        w = torch.full(shape, 0.5, requires_grad=True)
        try:
            getattr(w, name)(*args)
        except Exception as error:
            if LEAF_ERROR in str(error):
                raised.append(name)
                break
            if own:
                first = str(error).split(". ")[0]
                other.append((name, first))
            continue
        # the version counter moves on every in-place write
        if w._version:
            changed.append((name, w.is_leaf and w.grad_fn is None))
        else:
            unchanged.append(name)
        break
    else:
        if not own:
            other.append((name, "no argument list fits"))

print(f"in-place methods tried: {len(names)}")
print(f"raise the leaf error:   {len(raised)}")
print("raise another error:")
for name, error in other:
    print(f"  {name}\n      {error}")
print("change the leaf, no error:")
for name, leaf in changed:
    print(f"  {name:<13} still a leaf: {leaf}")
print("run, leaf unchanged:")
for name in unchanged:
    print(f"  {name}")
