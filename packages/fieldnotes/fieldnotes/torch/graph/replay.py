"""The steps of the backward passes `backward` recorded, as the page shows them; in the snippet's process.

`steps(namespace)` turns what was noted into plain data, each step with one line of text, the keys of the
node and edges it highlights ("f0" for the first autograd node met, "t0" for the first tensor), and the
values it names. `keys()` maps the live objects to those keys, so the drawn graph (`build`) can mark
which of its boxes stands for which key. Names come from the snippet's namespace, after it ran.
"""

from __future__ import annotations

from collections.abc import Mapping

from fieldnotes.torch.graph import backward

_keys: dict[int, str] = {}
_objects: list = []  # what `_keys` names, kept alive so that its ids stay theirs


def _key(obj, prefix: str) -> str:
    if id(obj) not in _keys:
        _keys[id(obj)] = f"{prefix}{sum(1 for k in _keys.values() if k.startswith(prefix))}"
        _objects.append(obj)
    return _keys[id(obj)]


def keys() -> dict[int, str]:
    """id() of each tensor and autograd node the steps name -> its key ("f0", "t1")."""
    return dict(_keys)


def _names(namespace: Mapping[str, object]) -> dict[int, str]:
    """id() of each tensor -> the name the snippet gives it; a module's parameters by their
    named_parameters() name (prefixed with the module's when the snippet has several modules) first,
    so that a loop variable left on the last parameter does not name it."""
    import torch

    visible = {k: v for k, v in namespace.items() if not k.startswith("_")}
    modules = [(k, v) for k, v in visible.items() if isinstance(v, torch.nn.Module)]
    names: dict[int, str] = {}
    for module_name, module in modules:
        for pname, parameter in module.named_parameters():
            names.setdefault(id(parameter), pname if len(modules) == 1 else f"{module_name}.{pname}")
    for name, value in visible.items():
        if isinstance(value, torch.Tensor):
            names.setdefault(id(value), name)
    return names


def steps(namespace: Mapping[str, object]) -> list[dict]:
    """The steps of every backward pass the snippet ran, in order."""
    names = _names(namespace)
    outputs = {}  # id() of an autograd node -> the named tensor it made
    for value in namespace.values():
        fn = getattr(value, "grad_fn", None)
        if fn is not None and id(value) in names:
            outputs.setdefault(id(fn), value)

    def tensor_name(t) -> str:
        if id(t) in names:
            return names[id(t)]
        if t.grad_fn is not None:
            return f"the output of {type(t.grad_fn).__name__}"
        return "an unnamed leaf"

    def node_name(fn) -> str:
        leaf = getattr(fn, "variable", None)
        owner = leaf if leaf is not None else outputs.get(id(fn))
        if owner is not None and id(owner) in names:
            return f"{names[id(owner)]}'s {type(fn).__name__}"
        return type(fn).__name__

    def hook_text(tensor, hook: str, tail: str = "hook") -> str:
        whose = tensor_name(tensor) if tensor is not None else "a tensor"
        return f"{whose}'s lambda {tail}" if hook == "<lambda>" else f"{whose}'s {tail} {hook}"

    accumulates = {}  # id() of a leaf -> its AccumulateGrad
    for event in backward.events:
        if event[0] == "received" and getattr(event[1], "variable", None) is not None:
            accumulates.setdefault(id(event[1].variable), event[1])

    def node_of(tensor):
        return tensor.grad_fn if tensor.grad_fn is not None else accumulates.get(id(tensor))

    result: list[dict] = []
    passed_to: dict[int, int] = {}  # id() of a node -> how many gradients were passed to it in this pass
    hooked: set[int] = set()  # id() of the nodes whose tensor hooks ran in this pass
    pending: dict | None = None  # an AccumulateGrad's step, finished by the .grad it writes
    running: dict[int, dict] = {}  # id() of a node -> its step, which the gradients it passes finish

    def grad_of(t) -> str:
        return f"{names[id(t)]}.grad" if id(t) in names else f"the .grad of {tensor_name(t)}"

    def write(leaf, value) -> None:
        nonlocal pending
        if pending is not None and pending["edges"][0][1] == _key(leaf, "t"):
            verb = "writes" if pending["before"] is None else "adds it to the .grad it had:"
            pending["text"] += f" and {verb} {grad_of(leaf)} = {value['text'] if value else 'None'}"
            pending["grad"] = value
            pending = None
    for event in backward.events:
        kind = event[0]
        if kind == "start":
            _, roots, seeds = event
            passed_to, hooked = {}, set()
            who = ", ".join(tensor_name(r) for r in roots)
            call = f"{who}.backward()" if len(roots) == 1 else f"backward() of {who}"
            seeds_text = " and ".join(s["text"] for s in seeds)
            grads = "gradient is" if len(roots) == 1 else "gradients are"
            result.append({
                "text": f"{call} starts: {who}'s {grads} {seeds_text}",
                "kind": "start",
                "node": _key(roots[0], "t"),
                "edges": [[_key(r, "t"), _key(r.grad_fn, "f")] for r in roots if r.grad_fn is not None],
                "seeds": seeds,
            })
        elif kind == "hook":
            _, tensor, hook, saw, returned = event
            if returned is None:
                effect = "returns None: the gradient goes on unchanged"
            else:
                effect = f"returns {returned['text']}, which replaces the gradient"
            node = node_of(tensor) if tensor is not None else None
            many = passed_to.get(id(node), 0) if node is not None else 0
            summed = f", the sum of the {many} gradients passed to {node_name(node)}," if many > 1 else ""
            if node is not None and id(node) in hooked:
                summed = ""
            hooked.add(id(node))
            result.append({
                "text": f"{hook_text(tensor, hook)} sees {saw['text'] if saw else 'None'}{summed} and {effect}",
                "kind": "hook",
                "node": _key(tensor, "t") if tensor is not None else None,
                "edges": [],
                "hook": hook,
                "saw": saw,
                "returned": returned,
            })
        elif kind == "received":
            _, fn, received, kept, before = event
            got = " and ".join(g["text"] if g else "None" for g in received)
            many = passed_to.get(id(fn), 0)
            summed = f", the sum of the {many} gradients passed to it," if many > 1 and id(fn) not in hooked else ""
            leaf = getattr(fn, "variable", None)
            step = {
                "text": f"{node_name(fn)} receives {got}{summed}",
                "kind": "accumulate" if leaf is not None else "node",
                "node": _key(fn, "f"),
                "edges": [],
                "received": received,
            }
            if leaf is not None:
                step["edges"] = [[_key(fn, "f"), _key(leaf, "t")]]
                step["before"] = before
                pending = step
            else:
                running[id(fn)] = step
                step["kept"] = [{"tensor": _key(t, "t"), **v} for t, v in kept]
                step["keeping"] = "".join(
                    f"; {tensor_name(t)} keeps {grad_of(t)} = {v['text']} (retain_grad)" for t, v in kept
                )
            result.append(step)
        elif kind == "passed":
            _, fn, sent = event
            step = running.pop(id(fn), None)
            if step is None:
                continue  # an AccumulateGrad passes nothing on; its step ends with the .grad it writes
            parts = []
            for next_fn, value in sent:
                parts.append(f"{value['text']} to {node_name(next_fn)}")
                step["edges"].append([_key(fn, "f"), _key(next_fn, "f")])
                passed_to[id(next_fn)] = passed_to.get(id(next_fn), 0) + 1
            step["text"] += (" and passes " + " and ".join(parts) if parts else " and passes nothing on") + step.pop(
                "keeping"
            )
            step["passed"] = [{"to": _key(n, "f"), **v} for n, v in sent]
            if not step["kept"]:
                output = outputs.get(id(fn))
                whose = f"{names[id(output)]}'s gradient" if output is not None else "the gradient it received"
                step["text"] += f"; {whose} is dropped"
                step["dropped"] = True
        elif kind == "written":
            _, leaf, value = event
            write(leaf, value)
        elif kind == "own post":
            _, leaf, hook, before, value = event
            write(leaf, before)
            result.append({
                "text": f"{hook_text(leaf, hook, 'post-accumulate hook')} runs; then {grad_of(leaf)} = "
                f"{value['text'] if value else 'None'}",
                "kind": "post-accumulate hook",
                "node": _key(leaf, "t"),
                "edges": [],
                "hook": hook,
                "grad": value,
            })
    return result
