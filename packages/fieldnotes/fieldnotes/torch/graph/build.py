"""From tensors to the graph model; runs in the snippet's process, after it, on the tensors it left.

`build(namespace, names)` walks the autograd graph the way `backward()` does, starting from the named
tensors: a tensor's `grad_fn`, each node's `next_functions`, and `AccumulateGrad.variable` (the leaf
whose `.grad` that node fills). `.grad` is read only where it means something (a leaf, or
`t.retains_grad`), so drawing a graph never triggers torch's "non-leaf .grad" UserWarning in the
snippet's recorded output.

Collapsing big graphs:
A graph of more than `max_nodes` nodes (30 by default) is collapsed, mildest step first, until
it fits ("auto"); `collapse=` forces a step:
  - "chains": a run of 3 or more single-input, single-output autograd nodes (e.g. 50
    `MulBackward0` from a loop) becomes one pill, "MulBackward0 x50";
  - "modules": the parameters of each submodule (named via a module in `names`) become one
    box, "0 · Linear", together with the autograd nodes that only lead to them
    (`AccumulateGrad`, the weight's `TBackward0`, the first layer's `AddmmBackward0`);
  - "chains+modules": both; "none": never collapse.
Every folded node says how many nodes it stands for, and the `<desc>` says the graph was
collapsed. A graph still bigger than `max_nodes` after both steps is drawn as it is: name fewer
tensors, or raise `max_nodes`. In a page, the fence options `max_nodes:` and `collapse:` pass
these on (see graph_fence.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from fieldnotes.torch.graph.collapse import fold_chains, fold_modules
from fieldnotes.torch.graph.model import COLLAPSE_MODES, DEFAULT_MAX_NODES, Edge, Graph, GraphError, Node

if TYPE_CHECKING:
    import torch


@dataclass
class _Proto:
    kind: str
    ref: object
    names: list[str] = field(default_factory=list)
    group: tuple[str, str, str, str] | None = None  # (group name, module type, leaf name, module variable)


def build(
    namespace: Mapping[str, object],
    names: Sequence[str],
    *,
    max_nodes: int = DEFAULT_MAX_NODES,
    collapse: str = "auto",
    keys: Mapping[int, str] | None = None,
) -> Graph:
    """The autograd graph reachable from the named tensors (a module's name: all its parameters).
    `keys` (id() of a tensor or node -> a key of the recorded steps) marks each box with the keys of
    what it stands for."""
    if collapse not in COLLAPSE_MODES:
        raise GraphError(f"collapse must be one of {', '.join(COLLAPSE_MODES)}, not {collapse!r}")
    names = tuple(names)
    if not names:
        raise GraphError("no tensors named: list the variables to draw, e.g. `tensors: a b c`")
    protos, edges = _walk(_resolve(namespace, names))
    modes = ("none", "chains", "modules", "chains+modules") if collapse == "auto" else (collapse,)
    for mode in modes:
        graph = _finish(protos, edges, names, mode, keys or {})
        if len(graph.nodes) <= max_nodes:
            break
    return graph


def _resolve(namespace: Mapping[str, object], names: tuple[str, ...]) -> list[tuple[str, torch.Tensor, tuple]]:
    """(display name, tensor, group info) for each named tensor, a module's parameters included."""
    # Imported here, not at the top: only the snippet's process, which has torch already, walks tensors;
    # the MkDocs process imports this package to lay out and draw, and must not pay for importing torch.
    import torch

    modules = [n for n in names if isinstance(namespace.get(n), torch.nn.Module)]
    found: list[tuple[str, torch.Tensor, tuple]] = []
    for name in names:
        if name not in namespace:
            known = sorted(
                k
                for k, v in namespace.items()
                if not k.startswith("_") and isinstance(v, torch.Tensor | torch.nn.Module)
            )
            raise GraphError(
                f"the snippet defines no variable {name!r}; its tensors and modules are: "
                + (", ".join(known) or "none")
            )
        value = namespace[name]
        if isinstance(value, torch.Tensor):
            found.append((name, value, None))
        elif isinstance(value, torch.nn.Module):
            parameters = list(value.named_parameters())
            if not parameters:
                raise GraphError(f"{name!r} is a module without parameters: nothing to draw")
            for pname, parameter in parameters:
                prefix, _, leaf = pname.rpartition(".")
                shown = pname if len(modules) == 1 else f"{name}.{pname}"
                group_name = (prefix if len(modules) == 1 else f"{name}.{prefix}") if prefix else name
                module_type = type(value.get_submodule(prefix)).__name__
                found.append((shown, parameter, (group_name, module_type, leaf, name)))
        else:
            raise GraphError(f"{name!r} is a {type(value).__name__}, not a tensor or an nn.Module")
    return found


def _walk(named: list[tuple[str, torch.Tensor, tuple]]) -> tuple[list[_Proto], list[list]]:
    """Nodes in discovery order and edges [source index, target index, kind, count]."""
    import torch  # see _resolve

    protos: list[_Proto] = []
    index: dict[int, int] = {}  # id() of a live object -> its proto; only used within this call
    edges: dict[tuple[int, int, str], list] = {}

    def intern(kind: str, obj: object) -> int:
        key = id(obj)
        if key not in index:
            index[key] = len(protos)
            protos.append(_Proto(kind, obj))
        return index[key]

    def link(source: int, target: int, kind: str) -> None:
        key = (source, target, kind)
        if key in edges:
            edges[key][3] += 1
        else:
            edges[key] = [source, target, kind, 1]

    for shown, tensor, group in named:
        i = intern("tensor", tensor)
        if shown not in protos[i].names:
            protos[i].names.append(shown)
        protos[i].group = protos[i].group or group

    def enter(fn_index: int):
        fn = protos[fn_index].ref
        variable = getattr(fn, "variable", None)
        if isinstance(variable, torch.Tensor):
            link(fn_index, intern("tensor", variable), "variable")
        return fn_index, iter(fn.next_functions)

    def visit(start: int) -> None:
        # Depth first, next_functions in order; a loop, not recursion: graphs can be 10,000 deep.
        stack = [enter(start)]
        while stack:
            fn_index, pending = stack[-1]
            for next_fn, _ in pending:
                if next_fn is None:
                    continue
                seen = id(next_fn) in index
                target = intern("function", next_fn)
                link(fn_index, target, "next")
                if not seen:
                    stack.append(enter(target))
                    break
            else:
                stack.pop()

    for _, tensor, _ in named:
        if tensor.grad_fn is not None:
            seen = id(tensor.grad_fn) in index
            target = intern("function", tensor.grad_fn)
            link(index[id(tensor)], target, "grad_fn")
            if not seen:
                visit(target)
    return protos, list(edges.values())


def _finish(
    protos: list[_Proto], edges: list[list], names: tuple[str, ...], mode: str, keys: Mapping[int, str]
) -> Graph:
    protos = [replace(p) for p in protos]  # folding marks them; build() may try several modes
    members: dict[int, list[int]] = {i: [i] for i in range(len(protos))}  # shown node -> protos in it
    target_of = list(range(len(protos)))  # proto -> the shown node that stands for it
    named_fns = {e[1] for e in edges if e[2] == "grad_fn"}
    if "modules" in mode:
        fold_modules(protos, edges, named_fns, members, target_of)
    if "chains" in mode:
        fold_chains(protos, edges, named_fns, members, target_of)

    shown = sorted(members)
    ids = {p: f"n{k}" for k, p in enumerate(shown)}
    nodes = tuple(
        replace(
            _make_node(ids[p], [protos[m] for m in members[p]], protos[p]),
            keys=tuple(keys[id(protos[m].ref)] for m in members[p] if id(protos[m].ref) in keys),
        )
        for p in shown
    )
    merged: dict[tuple[str, str, str], int] = {}
    for source, target, kind, count in edges:
        s, t = ids[target_of[source]], ids[target_of[target]]
        if s != t:  # edges into a folded node from several of its members are drawn once
            merged[(s, t, kind)] = max(merged.get((s, t, kind), 0), count)
    graph_edges = tuple(Edge(s, t, k, c) for (s, t, k), c in merged.items())
    return Graph(nodes=nodes, edges=graph_edges, names=names, collapsed=mode)


def _make_node(node_id: str, parts: list[_Proto], head: _Proto) -> Node:
    if head.kind == "tensor":
        return _tensor_node(node_id, head)
    if head.kind == "function":
        name = type(head.ref).__name__
        return Node(node_id, "function", name, (name,), ref=head.ref)
    if head.kind == "chain":
        kinds = [type(p.ref).__name__ for p in parts]
        if len(set(kinds)) == 1:
            lines = (f"{kinds[0]} \u00d7{len(kinds)}",)
        else:
            lines = (f"{len(kinds)} nodes:", f"{kinds[0]} \u2026 {kinds[-1]}")
        return Node(node_id, "chain", lines[-1], lines, members=tuple(kinds), folded=len(parts), ref=head.ref)
    # A module's parameters.
    params = [p for p in parts if p.kind in ("tensor", "group") and p.group]
    group_name, module_type, _, module = head.group
    tensors = [p.ref for p in params]
    with_grad = sum(1 for t in tensors if t.grad is not None)
    hooks = sum(_count(t._backward_hooks) for t in tensors)
    post = sum(_count(getattr(t, "_post_accumulate_grad_hooks", None)) for t in tensors)
    lines = [f"{group_name} \u00b7 {module_type}", "leaves: " + ", ".join(p.group[2] for p in params)]
    lines.append(f".grad set: {with_grad} of {len(tensors)}")
    lines += _hook_lines(hooks, post)
    lines.append(f"(+{len(parts) - len(params)} autograd nodes)")
    return Node(
        node_id,
        "group",
        group_name,
        tuple(lines),
        is_leaf=True,
        requires_grad=all(t.requires_grad for t in tensors),
        hooks=hooks,
        post_accumulate_hooks=post,
        names=tuple(n for p in params for n in p.names),
        module=module,
        members=tuple(n for p in params for n in p.names),
        folded=len(parts),
        ref=head.ref,
    )


def _tensor_node(node_id: str, proto: _Proto) -> Node:
    tensor: torch.Tensor = proto.ref
    label = " = ".join(proto.names)
    kind = "leaf" if tensor.is_leaf else "intermediate"
    grad = _grad_text(tensor)
    hooks = _count(tensor._backward_hooks)
    post = _count(getattr(tensor, "_post_accumulate_grad_hooks", None))
    lines = [f"{label or '(unnamed)'} \u00b7 {kind}", f"requires_grad={tensor.requires_grad}"]
    if grad == "None" and not tensor.is_leaf and not tensor.retains_grad:
        lines.append(".grad = None (not kept)")
    else:
        lines.append(f".grad = {grad}")
    if tensor.retains_grad:
        lines.append("retain_grad()")
    lines += _hook_lines(hooks, post)
    return Node(
        node_id,
        "tensor",
        label,
        tuple(lines),
        is_leaf=tensor.is_leaf,
        requires_grad=tensor.requires_grad,
        grad=grad,
        retains_grad=tensor.retains_grad,
        hooks=hooks,
        post_accumulate_hooks=post,
        names=tuple(proto.names),
        module=proto.group[3] if proto.group else "",
        ref=tensor,
    )


def _hook_lines(hooks: int, post: int) -> list[str]:
    lines = []
    if hooks:
        lines.append(f"register_hook \u00d7{hooks}")
    if post:
        lines.append(f"post-accumulate hook \u00d7{post}")
    return lines


def _count(hooks) -> int:
    return len(hooks) if hooks else 0


def _grad_text(tensor: torch.Tensor) -> str:
    """The tensor's .grad as text, read only where torch keeps it (no non-leaf .grad warning)."""
    if not (tensor.is_leaf or tensor.retains_grad):
        return "None"
    grad = tensor.grad
    if grad is None:
        return "None"
    text = re.sub(r"\s+", " ", repr(grad))
    if len(text) <= 24:
        return text
    return f"{tuple(grad.shape)} tensor"
