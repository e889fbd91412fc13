"""Rules 1, 2 and 9 (rules.py) checked over torch's operator database
(_op_db.py), with each exception torch's operators make printed as a
list: the lists are this run's output, so they drift when torch
changes them. A call that fits neither its rule nor a list fails the
check."""

import textwrap

import torch
from _checks import LEAF_IN_PLACE, VIEW_OF_LEAF_IN_PLACE
from _op_db import sweep

entries, names, calls = sweep()
broken = []


def fill(text, first=""):
    """Wrapped to fit a phone's 41 columns."""
    return textwrap.fill(
        text,
        41,
        initial_indent=first,
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def show(title, ops):
    """A list, several names a line."""
    ops = sorted({op.replace("nn.functional.", "F.") for op in ops})
    print(fill(f"- {title} ({len(ops)}):"))
    print(fill(", ".join(ops) if ops else "none", "  "))


def counted(rule, checked):
    n = len({c.op for c in checked})
    print(
        fill(
            f"rule {rule} holds on {n} operators, {n} samples"
            f" ({len(checked):,} calls), but:"
        )
    )


RECORDED = (False, True, True)
# what a recorded in-place operation leaves
RG = (False, True)
NOT_RECORDED = (True, False, False)
out = [c for c in calls if not c.inplace and not c.error]
itself, unrecorded, views = set(), set(), {}
for c in out:
    for is_leaf, requires_grad, has_node, is_view in c.outputs:
        facts = (is_leaf, requires_grad, has_node)
        if c.itself:
            itself.add(c.op)
        elif facts == (RECORDED if c.recorded else NOT_RECORDED):
            continue
        elif c.recorded and facts == NOT_RECORDED:
            unrecorded.add(c.op)
        elif c.mode != "grad mode on" and is_view and is_leaf:
            views.setdefault(c.mode, set()).add(c.op)
        else:
            broken.append(c)

# in place: the target becomes a non-leaf exactly when recorded,
# and rule 9's errors
ERRORS = {
    "leaf requiring grad": LEAF_IN_PLACE,
    "view of a leaf requiring grad": VIEW_OF_LEAF_IN_PLACE,
}
inplace = [c for c in calls if c.inplace]
runs = {c.op for c in inplace if c.made == "leaf" and not c.error}
inplace = [c for c in inplace if c.op in runs]
not_in_place, refusals = set(), {}
for c in inplace:
    expected = ERRORS.get(c.made) if c.recorded else None
    kept = c.after == c.before and (expected or c.before != RG)
    if c.error is None and c.recorded and kept:
        not_in_place.add(c.op)
    elif c.error is None:
        if expected or c.after != (RG if c.recorded else c.before):
            broken.append(c)
    elif expected is None or not c.error.startswith(expected):
        refusals.setdefault(c.error, set()).add(c.op)
changed = {c.op for c in out if c.after != c.before}
# rule 2: a recorded write makes non-leaves of the views of its
# memory (taken with grad mode on)
unusable = set()
for c in out:
    for fact in c.after_write:
        if fact == "raises":
            unusable.add(c.op)
        elif fact:
            broken.append(c)

print(f"torch {torch.__version__}: op_db has {entries}")
print(f"entries, {len(names)} of them operators with")
print(f"a floating CPU sample, {len(runs)} also in place")
print("(F. is torch.nn.functional.)")
counted(1, out)
show("return their input itself", itself)
show("give floating results autograd does not record", unrecorded)
no_grad = views.get("no_grad()", set())
show("views taken under no_grad() that require grad", no_grad)
also = views.get("inference_mode()", set()) - no_grad
show("and only under inference_mode()", also)
counted(2, out + [c for c in inplace if not c.error])
show("change their input's leafness out of place", changed)
show("in place, are not recorded", not_in_place)
show("give views that raise once their memory is written", unusable)
counted(9, [c for c in inplace if c.recorded])
for error, ops in sorted(refusals.items()):
    show(f'raise "{error[:60]}"', ops)
for c in broken[:5]:
    print(f"FAILS: {c.op} {c.mode} {c.made}: {c}")
if broken:
    raise SystemExit(f"{len(broken)} calls fit no rule nor list")
