"""What rules.py's predicates compute from a run of a program, and
expected_error(): each error torch raises in the programs, when, and
with which message (rule 9)."""

import re

import torch
from _programs import OPS, SHAPE, Rule, Run, Step

MAKES_A_LEAF = ("make", "like", "integer", "detach", "data", "parameter", "module")


MAKES_A_TENSOR = ("make", "like", "op", "view", "copy", "integer", "chunk", "detach", "data", "parameter", "module")


def speaks_of(rule: Rule) -> Rule:
    """Give a rule the constructs its docstring lists after "It speaks of:" (see check())."""
    listed = rule.__doc__.split("It speaks of:\n", 1)[1]
    rule.constructs = tuple(line.strip()[2:] for line in listed.splitlines() if line.strip().startswith("- "))
    return rule


def base_requires_grad(step: Step, view) -> bool:
    """Whether a view's base (the tensor that owns its memory) requires grad at `step`."""
    base = next((f for f in step.before.values() if f.tensor is view.tensor._base), None)
    return base.requires_grad if base is not None else view.tensor._base.requires_grad


def recorded(step: Step) -> bool:
    """Whether grad mode is on and one of the line's tensor inputs requires grad, which rule 1 says recording
    needs. For the programs' floating operations (their ops, views, copies, chunk(), in-place writes and
    module calls) it is enough too; rule 1's check takes the others (factories, integer results, detach(),
    .data) apart, as autograd records none of them."""
    inputs = step.line.inputs + ((step.line.target,) if step.line.kind == "inplace" else ())
    return step.line.grad_mode and any(step.before[name].requires_grad for name in inputs)


def inference_involved(step: Step) -> bool:
    """Whether a line runs in inference mode or reads an inference tensor (rule 1's words leave both out)."""
    inputs = [step.before[name].tensor for name in step.line.inputs if name in step.before]
    return "inference_mode" in step.line.code or any(t.is_inference() for t in inputs)


def no_grad_view_of(run: Run, step: Step, memory) -> bool:
    """Whether a view of `memory` (a family(), see below) was taken with grad mode off before `step`."""
    for made in run.before(step):
        if made.line.kind in ("view", "copy", "chunk") and not made.line.grad_mode and not made.error:
            for name in made.line.defines or (made.line.target,):
                facts = made.after.get(name)
                if facts is not None and facts.tensor._is_view() and family(facts) is memory:
                    return True
    return False


def stores_grad(facts) -> bool:
    """The tensors backward() writes a .grad into: leaves that require grad, and retain_grad() tensors."""
    return (facts.is_leaf and facts.requires_grad) or facts.retains_grad


def same_grad(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and torch.equal(a, b))


def listed(step: Step) -> list:
    """The tensors a backward(inputs=[...]) line lists."""
    return [step.before[name].tensor for name in step.line.inputs[1:]]


def gets_a_grad(step: Step, name: str) -> bool:
    """Whether a backward() line stores into this tensor's .grad (rule 4)."""
    old = step.before[name]
    flows = step.entries[name] in step.edges
    if not listed(step):
        return stores_grad(old) and flows
    if any(old.tensor is t for t in listed(step)):
        return flows
    return old.retains_grad and not old.is_leaf and step.nodes[name] in step.path and flows


def late_view(run: Run, step: Step, name: str) -> bool:
    """A view made while its base did not require grad, whose base requires grad after `step`."""
    view = step.after[name].tensor
    if not view._is_view():
        return False
    base = next((n for n, f in step.after.items() if f.tensor is view._base), None)
    if base is None or not step.after[base].requires_grad:
        return False
    made = next(s for s in run.steps if name in s.after)
    return not made.after.get(base, step.after[base]).requires_grad


def family(facts) -> object:
    """A view's base, or the tensor itself: tensors of one family share memory and a version counter."""
    return facts.tensor._base if facts.tensor._is_view() else facts.tensor


def version_of(facts) -> tuple:
    """Which value of a tensor its hooks belong to: its grad_fn and output (an in-place operation gives it
    a new grad_fn); all of a leaf's hooks belong to the one value."""
    return (facts.grad_fn, facts.output_nr) if facts.grad_fn is not None else (None, 0)


def hook_groups(run: Run, step: Step, name: str) -> list[tuple[tuple, list[Step]]]:
    """The hooks registered on a tensor before `step`, grouped by the value they were registered on,
    newest first."""
    groups: dict = {}
    for h in run.tensor_hooks(step).get(name, []):
        groups.setdefault(version_of(h.before[h.line.target]), []).append(h)
    return sorted(groups.items(), key=lambda item: -run.steps.index(item[1][0]))


def walked(step: Step) -> set:
    """The nodes a pass runs: every node it reaches, or with inputs, those between output and inputs."""
    return step.reached if step.line.kind == "backward" and not listed(step) else step.path


def not_older(run: Run, step: Step, name: str, event) -> bool:
    """Whether a hook event belongs to the tensor's current node (not one it had before an in-place op)."""
    if event[0] != "hook":
        registered = next(
            s
            for s in reversed(run.before(step))
            if s.line.target == event[1] and s.line.kind in ("node_hook", "post_hook")
        )
        return version_of(registered.before[event[1]])[0] is version_of(step.before[name])[0]
    hook = next(s for s in run.before(step) if s.line.kind == "hook" and f", {event[4]}))" in s.line.code)
    return version_of(hook.before[hook.line.target]) == version_of(step.before[name])


SAVES_A_TENSOR = {form for form, saves in OPS.items() if saves} | {"{a}.mul_(2)"}


LEAF_IN_PLACE = "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."


VIEW_OF_LEAF_IN_PLACE = (
    "RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation."
)


NO_GRAD_VIEW_IN_PLACE = "RuntimeError: A view was created in no_grad mode and is being modified inplace"


NO_GRAD_VIEW_OF_VIEW_IN_PLACE = re.compile(
    r"RuntimeError: Output 0 of \w+ is a view of a view which was created in no_grad mode and is being modified inplace"
)


NO_GRAD_TO_RETAIN = "RuntimeError: can't retain_grad on Tensor that has requires_grad=False"


NO_GRAD_TO_HOOK = "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"


NON_LEAF_POST_HOOK = "RuntimeError: post accumulate grad hooks cannot be registered on non-leaf tensors"


NON_LEAF_FLAG = "RuntimeError: you can only change requires_grad flags of leaf variables."


INTEGER_REQUIRES_GRAD = "RuntimeError: only Tensors of floating point dtype can require gradients"


INTEGER_FACTORY_REQUIRES_GRAD = "RuntimeError: Only Tensors of floating point and complex dtype can require gradients"


LINEAR_DTYPE = "RuntimeError: mat1 and mat2 must have the same dtype"


NOT_DIFFERENTIABLE = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"


NOT_SCALAR = "RuntimeError: grad can be implicitly created only for scalar outputs"


INPUT_NOT_DIFFERENTIABLE = "RuntimeError: One of the differentiated Tensors does not require grad"


FREED = "RuntimeError: Trying to backward through the graph a second time"


FREED_OR_MODIFIED = re.compile(
    r"RuntimeError: (Trying to backward through the graph a second time|one of the variables needed for"
    r" gradient computation has been modified by an inplace operation)"
)


MODIFIED = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"
)


def saves_for_backward(step: Step) -> bool:
    """Whether a recorded line saved a tensor for backward, which a pass without retain_graph frees: an
    operation of SAVES_A_TENSOR, for the gradient of an input with a node, or an in-place one on a view."""
    if not recorded(step) or step.error:
        return False
    if step.line.kind == "inplace" and step.before[step.line.target].tensor._is_view():
        return True
    return step.line.form in SAVES_A_TENSOR and any(step.has_node.values())


def view_made_under_no_grad(run: Run, step: Step, name: str) -> str | None:
    """Whether the tensor is a view made under no_grad() ("itself"), or a view of one ("its input")."""
    made = next(s for s in run.before(step) if name in s.line.defines or s.line.target == name)
    if made.line.kind in MAKES_A_LEAF or not made.after[name].tensor._is_view():
        return None
    if not made.line.grad_mode:
        return "itself"
    if made.line.kind in ("view", "copy", "chunk") and view_made_under_no_grad(run, made, made.line.inputs[0]):
        return "its input"
    return None


def expected_error(run: Run, step: Step) -> str | re.Pattern | None:
    line, old = step.line, step.before.get(step.line.target)
    earlier = run.before(step)
    if line.kind == "requires_grad_" and line.form == "False" and not old.is_leaf:
        return NON_LEAF_FLAG
    if line.kind == "requires_grad_" and line.form == "" and not old.tensor.is_floating_point():
        return INTEGER_REQUIRES_GRAD
    first = step.before.get(line.inputs[0]) if line.inputs else None
    if line.kind == "like" and "requires_grad=True" in line.code and not first.tensor.is_floating_point():
        return INTEGER_FACTORY_REQUIRES_GRAD
    if line.kind == "retain_grad" and not old.requires_grad:
        return NO_GRAD_TO_RETAIN
    if line.kind in ("hook", "post_hook") and not old.requires_grad:
        return NO_GRAD_TO_HOOK
    if line.kind == "post_hook" and not old.is_leaf:
        return NON_LEAF_POST_HOOK
    if line.form == "m({a})" and first.tensor.dtype != torch.float32:
        return LINEAR_DTYPE
    if line.kind == "inplace" and line.grad_mode:
        base = next((f for f in step.before.values() if f.tensor is old.tensor._base), None)
        no_grad_view = view_made_under_no_grad(run, step, line.target)
        if no_grad_view == "itself" and recorded(step):
            return NO_GRAD_VIEW_IN_PLACE
        if no_grad_view == "its input" and recorded(step):
            return NO_GRAD_VIEW_OF_VIEW_IN_PLACE
        base_is_leaf = base.is_leaf if base is not None else old.tensor._is_view() and old.tensor._base.is_leaf
        if old.tensor._is_view() and old.requires_grad and base_is_leaf:  # even once the base no longer requires grad
            return VIEW_OF_LEAF_IN_PLACE
        if old.is_leaf and old.requires_grad:
            return LEAF_IN_PLACE
    if line.kind not in ("backward", "grad"):
        return None
    output = step.output
    if not output.requires_grad:
        return NOT_DIFFERENTIABLE
    if line.kind == "grad" and not step.before[line.inputs[1]].requires_grad:
        return INPUT_NOT_DIFFERENTIABLE
    if line.kind == "backward" and any(not step.before[n].requires_grad for n in line.inputs[1:]):
        return NO_GRAD_TO_RETAIN  # backward(inputs=...) retains the grad of what it lists
    if line.kind == "backward" and output.tensor.numel() > 1 and "ones_like" not in line.code:
        return NOT_SCALAR
    if step.entries[line.inputs[0]][0] is None:  # a view made under no_grad(): no node a gradient can enter
        return NOT_DIFFERENTIABLE
    # a pass runs only the nodes between the output and its inputs, not the inputs' own nodes
    nodes = walked(step) - ({step.nodes[n] for n in line.inputs[1:]} if line.kind == "grad" else set())
    freed, half_freed = set(), set()
    for s in earlier:
        if s.line.kind in ("backward", "grad") and not re.search("retain_graph|create_graph", s.line.code):
            if not s.error:
                freed |= walked(s)
            elif s.error.startswith(MODIFIED):  # it freed some of what it ran before it raised
                half_freed |= walked(s)
    on_path = [s for s in earlier if s.made() & nodes]
    saved = [s for s in on_path if saves_for_backward(s)]
    if any(s.made() & freed for s in saved):
        return FREED
    modified = any(
        step.before[name].version != version for s in on_path for name, version in s.saved_versions().items()
    )
    if any(s.made() & half_freed for s in saved):
        return FREED_OR_MODIFIED if modified else FREED
    return MODIFIED if modified else None


def title(rule: Rule) -> str:
    """A rule's name in the output: the bold sentence its words open with."""
    lead = re.search(r"\*\*(.+?)\.\*\*", rule.__doc__, re.S)[1]
    lead = " ".join(lead.replace("`", "").split())
    return lead[0].lower() + lead[1:]


def expected_sharing(line, x) -> tuple[bool, bool] | None:
    """(shares memory, is the input itself): what rule 3 says of a view or copy of `x`; None when
    torch refuses to use `x` by now (rule 9)."""
    t, form = x.tensor, line.form
    if line.kind != "copy":  # view(), t(), transpose(), slicing, chunk(), detach(), .data
        return True, False
    if form == "{a}.reshape({shape})":  # a view exactly when view() works
        try:
            t.view(SHAPE)
        except RuntimeError as error:
            return None if "no_grad mode" in str(error) else (False, False)
        return True, False
    if form == "{a}.contiguous()":
        return t.is_contiguous(), t.is_contiguous()
    if form in ("{a}.to(torch.float32)", "{a}.to(torch.float64)"):
        own = str(t.dtype) == form[len("{a}.to(") : -1]
        return own, own
    if form == "{a}.t().contiguous().t()":  # a copy unless x.t() is contiguous
        return t.t().is_contiguous(), False
    return False, False  # clone(), a round trip through another dtype


def hook_cases(run: Run, step: Step, name: str):
    """Rule 6's cases for one hooked tensor in one pass."""
    nodes = walked(step)
    events = [e for e in run.events_of(step, name) if e[0] == "hook"]
    current = version_of(step.before[name])
    for version, hooks in hook_groups(run, step, name):
        numbers = {int(re.search(r"(\d+)\)\)$", h.line.code)[1]) for h in hooks}
        ran = [e for e in events if e[4] in numbers]
        # a leaf's: the AccumulateGrad of this pass's graph ("each graph's")
        node = version[0] or step.accumulators.get(id(step.before[name].tensor))
        runs = node is not None and node in nodes
        yield (
            len(ran) == (len(hooks) if runs else 0),
            f"{name}: {len(ran)} of {len(hooks)} hooks ran, its node runs: {runs}",
        )
        if not ran:
            continue
        value = ran[0][2]
        for event in ran:
            shaped = event[2] is None or event[2].shape == step.before[name].tensor.shape
            yield (
                shaped and same_grad(event[2], value),
                f"{name}: hook {event[4]} got another gradient",
            )
            value = value if event[3] is None else event[3]
        old, new = step.before[name], step.after[name]
        stores = gets_a_grad(step, name) if step.line.kind == "backward" else old.retains_grad
        if version == current and stores and value is not None:
            expected = value if old.grad is None else old.grad + value
            yield (
                torch.allclose(new.grad, expected),
                f"{name}.grad is not what its last hook passed on",
            )


ORDER = ["hook", "retain_grad", "node_pre", "node_post", "post_accumulate"]


def order_cases(run: Run, step: Step, name: str):
    """Rule 7's cases for one tensor in one pass."""
    old, new = step.before[name], step.after[name]
    events = run.events_of(step, name)
    if not events:
        return
    current = [e for e in events if not_older(run, step, name, e)]
    older = events[len(current) :]
    if not old.tensor._is_view():  # a view's earlier node need not come after its current one
        yield (
            all(not_older(run, step, name, e) is False for e in older),
            f"{name}: a hook of its old value ran before one of its current value",
        )
    kinds = [e[0] for e in current]
    if old.retains_grad and step.after[name].grad is not None:
        # the store comes after the tensor hooks: they see .grad as it was, the node's hooks the new one
        hooks_saw = [same_grad(e[5], old.grad) for e in current if e[0] == "hook"]
        node_saw = [same_grad(e[5], new.grad) for e in current if e[0] in ("node_pre", "node_post")]
        yield (
            all(hooks_saw) and all(node_saw),
            f"{name}: .grad was stored at another point",
        )
    yield (
        kinds == sorted(kinds, key=ORDER.index),
        f"{name}: ran in the order {kinds}",
    )
    numbers = [e[4] for e in current if e[0] == "hook"]
    yield (
        numbers == sorted(numbers),
        f"{name}: tensor hooks ran in the order {numbers}",
    )
    passed_on = None
    for event in current:
        if event[0] == "hook":
            passed_on = event[2] if event[3] is None else event[3]
    for event in current:
        if event[0] == "node_pre" and passed_on is not None:  # what the node receives: after every hook
            yield (
                same_grad(event[2], passed_on),
                f"{name}: the node's pre-hook got another gradient",
            )
        if event[0] == "post_accumulate":  # runs once .grad holds this pass's sum
            yield (
                same_grad(event[2], new.grad),
                f"{name}: post-accumulate hook saw another .grad",
            )
