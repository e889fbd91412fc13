"""Autograd graph diagrams, drawn from the tensors an executed snippet left behind.

`build(namespace, names)` walks the autograd graph the way `backward()` does, starting from the named
tensors: a tensor's `grad_fn`, each node's `next_functions`, and `AccumulateGrad.variable` (the leaf
whose `.grad` that node fills). The result is a `Graph` (plain data: nodes and edges, so tests can
check it without parsing SVG); `render_svg(graph)` draws it as one inline SVG element.

What the picture shows
    Tensors are boxes labelled with the names the snippet gives them (`a`, `loss`, or a module's
    `named_parameters()` name such as `0.weight`); a leaf the autograd graph reaches but the
    snippet never named is labelled "(unnamed)". Leaves have a double border and say "leaf";
    intermediate tensors have a dashed border and say "intermediate"; autograd nodes
    (`MulBackward0`, `AccumulateGrad`) are pills. So the kinds differ by shape, border and text,
    never by colour alone. Each tensor box shows `requires_grad`, its `.grad` ("None" or the value,
    or its shape when the value is long), and a line for `retain_grad()` and for hooks registered
    with `register_hook` (`t._backward_hooks`) and `register_post_accumulate_grad_hook`
    (`t._post_accumulate_grad_hooks`). Arrows follow the references autograd follows: solid from a
    node to the nodes in its `next_functions`, dashed and labelled for `grad_fn` and `variable`.
    The `<title>` and `<desc>` of the SVG say the same in words.

    `.grad` is read only where it means something (a leaf, or `t.retains_grad`), so drawing a graph
    never triggers torch's "non-leaf .grad" UserWarning in the snippet's recorded output.

Collapsing big graphs
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

Layout: why written here, in about 200 lines
    The diagrams are small (< 30 nodes) directed acyclic graphs, drawn top to bottom in the
    direction `backward()` runs. The layout is the classic layered (Sugiyama) scheme: longest-path
    layers, dummy nodes on edges that span layers, barycentre sweeps against crossings, and
    x positions by isotonic regression (pool-adjacent-violators), every tie broken by discovery
    order. Two additions keep diagrams narrow enough for a 375 px phone (the SVG scales down to
    the column, so width is what makes text small): a row wider than MAX_ROW pushes a node (and
    what hangs below it) one row down, and a slight pull to the middle (GRAVITY) stops branches
    from drifting apart. It is written here rather than taken from a library because:
      - Graphviz (`dot`) is a system package, and the README's set-up runs without root or apt;
      - PyPI `graphviz-pure` is a few months old and its metadata names no author or licence;
      - `grandalf` (pure Python Sugiyama) has had no release since 2023, and its output would still
        need an SVG writer and its own determinism checks;
      - `networkx` (already installed, as a torch dependency) only offers the layering step for
        this kind of graph, and importing it costs about 0.8 s in every diagram's fresh process.
    Doing it here keeps the output byte-identical across builds by construction: no ids from
    `id()`, no addresses, no set or hash ordering, and numbers rounded to 0.1.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

GRAPH_BEGIN = "<<<fieldnotes-autograd-graph>>>"
GRAPH_END = "<<<end-fieldnotes-autograd-graph>>>"
ERROR_BEGIN = "<<<fieldnotes-autograd-graph-error>>>"
ERROR_END = "<<<end-fieldnotes-autograd-graph-error>>>"

DEFAULT_MAX_NODES = 30
COLLAPSE_MODES = ("auto", "none", "chains", "modules", "chains+modules")
_MIN_CHAIN = 3  # shorter runs of single-in, single-out nodes are drawn as they are


class GraphError(Exception):
    """The diagram cannot be drawn as asked (e.g. a name the snippet does not define)."""


@dataclass(frozen=True)
class Node:
    id: str
    """"n0", "n1", ... in discovery order: stable for the same code, never derived from id()."""
    kind: str
    """"tensor", "function" (an autograd node), "group" (a module's parameters) or "chain"."""
    label: str
    """Tensor: its name(s) in the snippet ("a", "0.weight", "" if unnamed); function: the class name
    ("MulBackward0"); group: the submodule's name; chain: a summary."""
    lines: tuple[str, ...]
    """The text drawn in the box, top to bottom."""
    is_leaf: bool = False
    requires_grad: bool = False
    grad: str | None = None
    """Tensor: the text of its .grad ("None", "tensor(3.)", or "(8, 4) tensor" when the
    value is too long to show)."""
    retains_grad: bool = False
    hooks: int = 0
    """Hooks from register_hook (t._backward_hooks); for a group, the sum over its parameters."""
    post_accumulate_hooks: int = 0
    names: tuple[str, ...] = ()
    """Tensor: every name the example gives it; () for a leaf it never named."""
    module: str = ""
    """A parameter, or a group of them: the name of the module (in `names`) it belongs to."""
    members: tuple[str, ...] = ()
    """Group: its parameters' names; chain: the class names of the nodes it stands for."""
    folded: int = 0
    """Group or chain: how many nodes of the full graph it replaces."""
    ref: object = field(default=None, compare=False, repr=False)
    """The tensor or autograd node itself (tests compare against it); never rendered."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str
    """"grad_fn" (tensor -> its grad_fn), "next" (node -> an entry of its next_functions) or
    "variable" (AccumulateGrad -> the leaf it accumulates into)."""
    count: int = 1
    """How many entries of next_functions point there (b * b: 2)."""


@dataclass(frozen=True)
class Graph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    names: tuple[str, ...]
    collapsed: str = "none"

    def description(self) -> str:
        return _describe(self)


# ---------------------------------------------------------------------------------------------
# From tensors to the graph model


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
) -> Graph:
    """The autograd graph reachable from the named tensors (a module's name: all its parameters)."""
    if collapse not in COLLAPSE_MODES:
        raise GraphError(f"collapse must be one of {', '.join(COLLAPSE_MODES)}, not {collapse!r}")
    names = tuple(names)
    if not names:
        raise GraphError("no tensors named: list the variables to draw, e.g. `tensors: a b c`")
    protos, edges = _walk(_resolve(namespace, names))
    modes = ("none", "chains", "modules", "chains+modules") if collapse == "auto" else (collapse,)
    for mode in modes:
        graph = _finish(protos, edges, names, mode)
        if len(graph.nodes) <= max_nodes:
            break
    return graph


def _resolve(namespace: Mapping[str, object], names: tuple[str, ...]) -> list[tuple[str, torch.Tensor, tuple]]:
    """(display name, tensor, group info) for each named tensor, a module's parameters included."""
    # Imported here, not at the top: only the snippet's process, which has torch already, walks tensors;
    # the MkDocs process imports this module to lay out and draw, and must not pay for importing torch.
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


def _finish(protos: list[_Proto], edges: list[list], names: tuple[str, ...], mode: str) -> Graph:
    protos = [replace(p) for p in protos]  # folding marks them; build() may try several modes
    members: dict[int, list[int]] = {i: [i] for i in range(len(protos))}  # shown node -> protos in it
    target_of = list(range(len(protos)))  # proto -> the shown node that stands for it
    named_fns = {e[1] for e in edges if e[2] == "grad_fn"}
    if "modules" in mode:
        _fold_modules(protos, edges, named_fns, members, target_of)
    if "chains" in mode:
        _fold_chains(protos, edges, named_fns, members, target_of)

    shown = sorted(members)
    ids = {p: f"n{k}" for k, p in enumerate(shown)}
    nodes = tuple(_make_node(ids[p], [protos[m] for m in members[p]], protos[p]) for p in shown)
    merged: dict[tuple[str, str, str], int] = {}
    for source, target, kind, count in edges:
        s, t = ids[target_of[source]], ids[target_of[target]]
        if s != t:  # edges into a folded node from several of its members are drawn once
            merged[(s, t, kind)] = max(merged.get((s, t, kind), 0), count)
    graph_edges = tuple(Edge(s, t, k, c) for (s, t, k), c in merged.items())
    return Graph(nodes=nodes, edges=graph_edges, names=names, collapsed=mode)


def _descendants(protos, edges) -> list[set[int]]:
    """For each node, every node below it (bottom up, in a loop: no recursion limit)."""
    children: dict[int, list[int]] = {}
    parents = [0] * len(protos)
    for source, target, _, _ in edges:
        children.setdefault(source, []).append(target)
        parents[target] += 1
    order = [i for i in range(len(protos)) if parents[i] == 0]
    for i in order:  # grows while it is walked: Kahn's topological order
        for c in children.get(i, []):
            parents[c] -= 1
            if parents[c] == 0:
                order.append(c)
    below: list[set[int]] = [set() for _ in protos]
    for i in reversed(order):
        for c in children.get(i, []):
            below[i] |= {c} | below[c]
    return below


def _fold_modules(protos, edges, named_fns, members, target_of) -> None:
    """Merge each submodule's parameters, and the nodes that lead only to them, into one node."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(protos):
        if p.kind == "tensor" and p.group is not None:
            groups.setdefault(p.group[0], []).append(i)
    below = _descendants(protos, edges)
    for leaves in groups.values():
        head = leaves[0]
        inside = set(leaves)
        for i, p in enumerate(protos):
            if p.kind != "function" or i in named_fns or target_of[i] != i:
                continue
            tensors = {d for d in below[i] if protos[d].kind == "tensor"}
            if tensors and tensors <= inside and not (below[i] & named_fns):
                inside.add(i)
        for i in sorted(inside):
            if i != head:
                members[head].extend(members.pop(i))
                target_of[i] = head
        members[head].sort()
        protos[head].kind = "group"


def _fold_chains(protos, edges, named_fns, members, target_of) -> None:
    """Merge each run of _MIN_CHAIN or more single-in, single-out autograd nodes into one node."""
    ins: dict[int, set[int]] = {}
    outs: dict[int, set[int]] = {}
    for source, target, _, _ in edges:
        s, t = target_of[source], target_of[target]
        if s != t:
            outs.setdefault(s, set()).add(t)
            ins.setdefault(t, set()).add(s)

    def link_in_chain(i: int) -> bool:
        return (
            i in members
            and protos[i].kind == "function"
            and type(protos[i].ref).__name__ != "AccumulateGrad"
            and i not in named_fns
            and len(ins.get(i, ())) == 1
            and len(outs.get(i, ())) == 1
        )

    done: set[int] = set()
    for start in sorted(members):
        if start in done or not link_in_chain(start):
            continue
        (parent,) = ins[start]
        if link_in_chain(parent):
            continue  # not the top of its run
        run = [start]
        while True:
            (child,) = outs[run[-1]]
            if not link_in_chain(child):
                break
            run.append(child)
        done.update(run)
        if len(run) < _MIN_CHAIN:
            continue
        head = run[0]
        for i in run[1:]:
            members[head].extend(members.pop(i))
        for p, t in enumerate(target_of):
            if t in run:
                target_of[p] = head
        protos[head].kind = "chain"


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


_MARKS = ("retain_grad()", "register_hook", "post-accumulate hook")


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


# ---------------------------------------------------------------------------------------------
# The graph in words


def _describe(graph: Graph) -> str:
    by_id = {n.id: n for n in graph.nodes}
    counts: dict[str, int] = {}
    for n in graph.nodes:
        if n.kind == "function":
            counts[n.label] = counts.get(n.label, 0) + 1
    numbered: dict[str, str] = {}
    seen: dict[str, int] = {}
    grad_fn_of: dict[str, list[str]] = {}
    for e in graph.edges:
        if e.kind == "grad_fn":
            grad_fn_of.setdefault(e.target, []).append(by_id[e.source].label or "(unnamed)")
    fills = {e.source: by_id[e.target].label or "the unnamed leaf" for e in graph.edges if e.kind == "variable"}
    for n in graph.nodes:
        if n.kind == "function" and counts[n.label] > 1:
            seen[n.label] = seen.get(n.label, 0) + 1
            numbered[n.id] = f"{n.label} for {fills[n.id]}" if n.id in fills else f"{n.label} #{seen[n.label]}"

    def name(node_id: str) -> str:
        n = by_id[node_id]
        if n.kind == "tensor":
            return n.label or "an unnamed leaf"
        if n.kind == "function":
            text = numbered.get(node_id, n.label)
            owners = grad_fn_of.get(node_id)
            return f"{text} (grad_fn of {' and '.join(owners)})" if owners else text
        if n.kind == "group":
            return f"the parameters of {n.label}"
        return n.label

    sentences = [
        "Arrows follow the references backward() walks: from a tensor to its grad_fn, from each "
        "autograd node to the nodes in its next_functions, and from AccumulateGrad to the leaf "
        "whose .grad it fills."
    ]
    if graph.collapsed != "none":
        sentences.append(f"Collapsed to fit ({graph.collapsed}).")
    for module in graph.names:
        params = [x for n in graph.nodes if n.module == module for x in (n.members or n.names)]
        if params:
            sentences.append(
                f"{module} is a module; its parameters are named as named_parameters() names them: "
                + ", ".join(params)
                + "."
            )
    for n in graph.nodes:
        if n.kind == "tensor":
            kind = "a leaf" if n.is_leaf else "an intermediate (non-leaf) tensor"
            text = f"{n.label or 'An unnamed tensor'} is {kind} with requires_grad={n.requires_grad}"
            text += f" and a {n.grad} as .grad" if n.grad.endswith(" tensor") else f" and .grad {n.grad}"
            if n.grad == "None" and not n.is_leaf and not n.retains_grad:
                text += " (not kept: retain_grad() was not called)"
            extras = [line for line in n.lines if line.startswith(_MARKS)]
            if extras:
                text += "; marked " + ", ".join(extras)
            sentences.append(text + ".")
        elif n.kind == "group":
            sentences.append(
                f"{n.label} ({n.lines[0].split()[-1]}) stands for its parameters "
                f"{', '.join(n.members)}: " + "; ".join(n.lines[1:]) + "."
            )
    for e in graph.edges:
        times = f" ({e.count} times)" if e.count > 1 else ""
        if e.kind == "grad_fn":
            sentences.append(f"{by_id[e.source].label}.grad_fn is {numbered.get(e.target, by_id[e.target].label)}.")
        elif e.kind == "variable":
            sentences.append(f"{name(e.source)} accumulates into {name(e.target)}.")
        else:
            sentences.append(f"{name(e.source)} passes gradient to {name(e.target)}{times}.")
    return " ".join(sentences)


# ---------------------------------------------------------------------------------------------
# Layout: layered, top to bottom

FONT = 13.0
CHAR_W = 7.9  # a monospace advance at 13 px (0.6 em, rounded up)
LINE_H = 17.0
PAD_X = 9.0
PAD_Y = 6.0
GAP_X = 16.0  # between neighbours in a layer
GAP_Y = 34.0  # between layers: room for an edge label
MARGIN = 4.0
GRAVITY = 0.3
MAX_ROW = 440.0
_DUMMY_W = 8.0


@dataclass(frozen=True)
class Box:
    x: float  # left
    y: float  # top
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    boxes: dict[str, Box]
    routes: dict[tuple[str, str, str], list[tuple[float, float]]]
    """Per edge (source, target, kind): points from the source's bottom to the target's top; the
    pairs after the first are straight vertical runs past the layers the edge skips."""


def _size(node: Node) -> tuple[float, float]:
    w = max(len(line) for line in node.lines) * CHAR_W + 2 * PAD_X
    h = len(node.lines) * LINE_H + 2 * PAD_Y
    if node.kind in ("function", "chain"):
        w += h / 2  # the round ends of the pill
    return w, h


def layout(graph: Graph) -> Layout:
    order = [n.id for n in graph.nodes]
    size = {n.id: _size(n) for n in graph.nodes}
    succ: dict[str, list[str]] = {v: [] for v in order}
    pred: dict[str, list[str]] = {v: [] for v in order}
    for e in graph.edges:
        succ[e.source].append(e.target)
        pred[e.target].append(e.source)

    layer = _layers(order, succ, pred, {v: size[v][0] for v in order}, graph.edges)

    # Dummy nodes where an edge skips layers.
    width = {v: size[v][0] for v in order}
    chains: dict[tuple[str, str, str], list[str]] = {}
    adj_up: dict[str, list[str]] = {v: [] for v in order}
    adj_down: dict[str, list[str]] = {v: [] for v in order}
    for e in graph.edges:
        path = [e.source]
        for k in range(layer[e.source] + 1, layer[e.target]):
            dummy = f"{e.source}>{e.target}>{e.kind}>{k}"
            layer[dummy] = k
            width[dummy] = _DUMMY_W
            adj_up[dummy] = []
            adj_down[dummy] = []
            path.append(dummy)
        path.append(e.target)
        for a, b in zip(path, path[1:], strict=False):
            adj_down[a].append(b)
            adj_up[b].append(a)
        chains[(e.source, e.target, e.kind)] = path
    rank = {v: k for k, v in enumerate(order)}
    for v in layer:
        rank.setdefault(v, len(rank))
    layers: list[list[str]] = [[] for _ in range(max(layer.values()) + 1)]
    for v in sorted(layer, key=rank.__getitem__):
        layers[layer[v]].append(v)

    layers = _order(layers, adj_up, adj_down)
    x = _place(layers, width, adj_up, adj_down)

    heights = [max((size[v][1] for v in row if v in size), default=0.0) for row in layers]
    tops, y = [], MARGIN
    for h in heights:
        tops.append(y)
        y += h + GAP_Y
    height = y - GAP_Y + MARGIN + 2  # + the arrowhead's overhang
    left = min(x[v] - width[v] / 2 for v in x)
    boxes = {}
    for k, row in enumerate(layers):
        for v in row:
            if v in size:
                w, h = size[v]
                boxes[v] = Box(x[v] - w / 2 - left + MARGIN, tops[k] + (heights[k] - h) / 2, w, h)
    total_w = max(x[v] + width[v] / 2 for v in x) - left + 2 * MARGIN

    routes = {}
    for key, path in chains.items():
        points = [(None, boxes[key[0]].y + boxes[key[0]].h)]
        for dummy in path[1:-1]:
            k = layer[dummy]
            dx = x[dummy] - left + MARGIN
            points += [(dx, tops[k]), (dx, tops[k] + heights[k])]
        points.append((None, boxes[key[1]].y))
        routes[key] = points
    _ports(routes, boxes, graph)
    return Layout(width=total_w, height=height, boxes=boxes, routes=routes)


def _layers(order, succ, pred, width, edges) -> dict[str, int]:
    """Rows: longest path from the top, then nodes pushed down out of rows wider than MAX_ROW."""
    rank = {v: k for k, v in enumerate(order)}
    layer: dict[str, int] = {}
    waiting = {v: len(pred[v]) for v in order}
    ready = [v for v in order if waiting[v] == 0]
    for v in ready:  # grows while it is walked: Kahn's topological order
        layer[v] = max((layer[p] + 1 for p in pred[v]), default=0)
        for s in succ[v]:
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    if len(layer) != len(order):
        raise GraphError("the autograd graph has a cycle")  # cannot happen; guards the loop above

    def lower_sources() -> None:
        # A tensor at the top sits just above its grad_fn, not above everything.
        for v in order:
            if not pred[v] and succ[v]:
                layer[v] = min(layer[s] for s in succ[v]) - 1
        low = min(layer.values())
        for v in layer:
            layer[v] -= low

    def row_width(k: int) -> float:
        nodes = [width[v] for v in order if layer[v] == k]
        passing = sum(1 for e in edges if layer[e.source] < k < layer[e.target])
        return sum(nodes) + GAP_X * (len(nodes) - 1) + passing * (_DUMMY_W + GAP_X)

    def cascade(v: str) -> set[str]:
        # v, and whatever must move down with it to keep every edge pointing down.
        moved, todo = {v}, [v]
        while todo:
            u = todo.pop()
            for s in succ[u]:
                if s not in moved and layer[s] == layer[u] + 1:
                    moved.add(s)
                    todo.append(s)
        return moved

    # A leaf stays right under its AccumulateGrad when something else can move instead.
    held = {e.target for e in edges if e.kind == "variable"}
    lower_sources()
    for _ in range(4):
        changed = False
        k = 0
        while k <= max(layer.values()):
            row = [v for v in order if layer[v] == k]
            if len(row) > 1 and row_width(k) > MAX_ROW:
                moves = [(v in held, len(cascade(v)), -rank[v], v) for v in row]
                for u in cascade(min(moves)[3]):
                    layer[u] += 1
                changed = True
                continue  # the same row again
            k += 1
        if not changed:
            break
        lower_sources()
    return layer


def _crossings(layers, adj_down, pos) -> int:
    total = 0
    for row in layers[:-1]:
        pairs = [(pos[a], pos[b]) for a in row for b in adj_down[a]]
        total += sum(1 for i, (a1, b1) in enumerate(pairs) for a2, b2 in pairs[i + 1 :] if (a1 - a2) * (b1 - b2) < 0)
    return total


def _order(layers, adj_up, adj_down):
    """Barycentre sweeps down and up; the ordering with the fewest crossings wins (first on ties)."""

    def positions(ls):
        return {v: i for row in ls for i, v in enumerate(row)}

    best, best_cross = [list(r) for r in layers], _crossings(layers, adj_down, positions(layers))
    current = [list(r) for r in layers]
    for sweep in range(8):
        down = sweep % 2 == 0
        indices = range(1, len(current)) if down else range(len(current) - 2, -1, -1)
        for k in indices:
            pos = positions(current)
            neighbours = adj_up if down else adj_down

            def key(v, pos=pos, neighbours=neighbours):
                near = [pos[u] for u in neighbours[v]]
                return (sum(near) / len(near) if near else pos[v], pos[v])

            current[k] = sorted(current[k], key=key)
        cross = _crossings(current, adj_down, positions(current))
        if cross < best_cross:
            best, best_cross = [list(r) for r in current], cross
    return best


def _place(layers, width, adj_up, adj_down) -> dict[str, float]:
    """Centres: each node pulled to the mean of its neighbours, rows kept in order and apart."""
    x: dict[str, float] = {}
    for row in layers:
        spans = [width[v] for v in row]
        total = sum(spans) + GAP_X * (len(row) - 1)
        left = -total / 2
        for v, w in zip(row, spans, strict=True):
            x[v] = left + w / 2
            left += w + GAP_X
    passes = [adj_up, adj_down] * 6 + [None, None]
    for neighbours in passes:
        rows = layers if neighbours is not adj_down else list(reversed(layers))
        for row in rows:
            wanted = []
            for v in row:
                near = (adj_up[v] + adj_down[v]) if neighbours is None else neighbours[v]
                # A little pull to the middle keeps branches from drifting apart.
                wanted.append(sum(x[u] for u in near) / (len(near) + GRAVITY) if near else x[v])
            for v, value in zip(row, _isotonic(wanted, [width[v] for v in row]), strict=True):
                x[v] = value
    return x


def _isotonic(wanted: list[float], widths: list[float]) -> list[float]:
    """The centres closest (least squares) to `wanted` that keep the row's order and gaps (PAV)."""
    offsets = [0.0]
    for a, b in zip(widths, widths[1:], strict=False):
        offsets.append(offsets[-1] + (a + b) / 2 + GAP_X)
    blocks: list[list[float]] = []  # [sum, count]
    for target in (w - o for w, o in zip(wanted, offsets, strict=True)):
        blocks.append([target, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += count
    values = [s / c for s, c in blocks for _ in range(int(c))]
    return [v + o for v, o in zip(values, offsets, strict=True)]


def _ports(routes, boxes, graph: Graph) -> None:
    """Spread the ends of several edges along a box's bottom (or top), ordered by where they go."""
    out_of: dict[str, list] = {}
    into: dict[str, list] = {}
    for key in routes:
        out_of.setdefault(key[0], []).append(key)
        into.setdefault(key[1], []).append(key)

    ends: dict[tuple, list] = {key: list(points) for key, points in routes.items()}
    for side, table in (("out", out_of), ("in", into)):
        for node_id, keys in table.items():
            box = boxes[node_id]

            def aim(key, side=side):
                points = routes[key]
                other = key[1] if side == "out" else key[0]
                inner = points[1][0] if side == "out" else points[-2][0]
                return (inner if inner is not None else boxes[other].cx, boxes[other].cx)

            keys = sorted(keys, key=aim)
            n = len(keys)
            step = min(14.0, box.w * 0.5 / max(n - 1, 1))
            for i, key in enumerate(keys):
                px = box.cx + (i - (n - 1) / 2) * step
                if side == "out":
                    ends[key][0] = (px, ends[key][0][1])
                else:
                    ends[key][-1] = (px, ends[key][-1][1])
    routes.update(ends)


# ---------------------------------------------------------------------------------------------
# SVG


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _path(points: list[tuple[float, float]]) -> str:
    d = [f"M{_n(points[0][0])},{_n(points[0][1])}"]
    for i in range(1, len(points)):
        (x0, y0), (x1, y1) = points[i - 1], points[i]
        if i % 2 == 0:  # a straight run past a skipped layer
            d.append(f"L{_n(x1)},{_n(y1)}")
        else:
            mid = (y0 + y1) / 2
            d.append(f"C{_n(x0)},{_n(mid)} {_n(x1)},{_n(mid)} {_n(x1)},{_n(y1)}")
    return " ".join(d)


def render_svg(graph: Graph, *, id_prefix: str = "", title: str | None = None) -> str:
    """One <svg> element, ASCII only, the same bytes for the same graph."""
    prefix = id_prefix or "ag-" + hashlib.sha1(repr((graph.names, title)).encode()).hexdigest()[:8]
    title = title or f"Autograd graph of {', '.join(graph.names)}"
    lay = layout(graph)
    w, h = lay.width, lay.height
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ag-graph" role="img" '
        f'aria-labelledby="{prefix}-title" aria-describedby="{prefix}-desc" '
        f'viewBox="0 0 {_n(w)} {_n(h)}" width="100%" style="max-width: {_n(w)}px" '
        f'font-family="monospace" font-size="{_n(FONT)}" fill="currentColor">',
        f'<title id="{prefix}-title">{escape(title)}</title>',
        f'<desc id="{prefix}-desc">{escape(graph.description())}</desc>',
        f'<defs><marker id="{prefix}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
        'markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto">'
        '<path class="ag-arrowhead" d="M0,1 L10,5 L0,9 z" fill="currentColor"/></marker></defs>',
        '<g class="ag-edges" fill="none" stroke="currentColor">',
    ]
    for e in graph.edges:
        points = lay.routes[(e.source, e.target, e.kind)]
        out.append(
            f'<path class="ag-edge ag-edge-{e.kind}" data-from="{e.source}" data-to="{e.target}" '
            f'data-kind="{e.kind}" d="{_path(points)}" marker-end="url(#{prefix}-arrow)"'
            + (' stroke-dasharray="5 3"' if e.kind != "next" else "")
            + "/>"
        )
        label = {"grad_fn": "grad_fn", "variable": "variable"}.get(e.kind, "")
        if e.count > 1:
            label = f"\u00d7{e.count}"
        if label:
            # Just below the source, where no other edge runs, on the side the edge bends away from.
            (x0, y0), (x1, _) = points[0], points[1]
            left = x1 > x0 + 4
            anchor = ' text-anchor="end"' if left else ""
            out.append(
                f'<text class="ag-edge-label" x="{_n(x0 - 5 if left else x0 + 5)}" y="{_n(y0 + 12)}" '
                f'font-size="11" stroke="none"{anchor}>{escape(label)}</text>'
            )
    out.append("</g>")
    out.append('<g class="ag-nodes">')
    for node in graph.nodes:
        out.append(_render_node(node, lay.boxes[node.id]))
    out.append("</g></svg>")
    return "\n".join(out).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _render_node(node: Node, box: Box) -> str:
    classes = ["ag-node", f"ag-{node.kind}"]
    if node.kind in ("tensor", "group"):
        classes.append("ag-leaf" if node.is_leaf else "ag-intermediate")
        if not node.requires_grad:
            classes.append("ag-no-grad")
        if node.kind == "tensor" and not node.names:
            classes.append("ag-unnamed")
    if node.retains_grad:
        classes.append("ag-retains-grad")
    if node.hooks or node.post_accumulate_hooks:
        classes.append("ag-hooked")
    attrs = f'class="{" ".join(classes)}" data-node="{node.id}" data-kind="{node.kind}"'
    if node.kind in ("tensor", "group"):
        attrs += f' data-label="{escape(node.label)}"'
    parts = [f"<g {attrs}>"]
    x, y, w, h = _n(box.x), _n(box.y), _n(box.w), _n(box.h)
    if node.kind in ("function", "chain"):
        parts.append(
            f'<rect class="ag-shape" x="{x}" y="{y}" width="{w}" height="{h}" rx="{_n(box.h / 2)}" '
            'fill="none" stroke="currentColor"/>'
        )
    elif node.is_leaf:
        parts.append(
            f'<rect class="ag-shape" x="{x}" y="{y}" width="{w}" height="{h}" '
            'fill="none" stroke="currentColor" stroke-width="1.5"/>'
        )
        parts.append(
            f'<rect class="ag-shape-inner" x="{_n(box.x + 3)}" y="{_n(box.y + 3)}" width="{_n(box.w - 6)}" '
            f'height="{_n(box.h - 6)}" fill="none" stroke="currentColor" stroke-width="1"/>'
        )
    else:
        parts.append(
            f'<rect class="ag-shape" x="{x}" y="{y}" width="{w}" height="{h}" rx="3" '
            'fill="none" stroke="currentColor" stroke-width="1.5" stroke-dasharray="6 3"/>'
        )
    for i, line in enumerate(node.lines):
        baseline = box.y + PAD_Y + i * LINE_H + 12.5
        line_class = "ag-title" if i == 0 else ("ag-mark" if line.startswith(_MARKS) else "ag-detail")
        if node.kind in ("function", "chain"):
            line_class = "ag-fn-name"
        text = escape(line)
        if i == 0 and node.kind in ("tensor", "group") and " \u00b7 " in line:
            name, _, rest = line.partition(" \u00b7 ")
            text = (
                f'<tspan class="ag-name" font-weight="bold">{escape(name)}</tspan>'
                f'<tspan class="ag-kind"> \u00b7 {escape(rest)}</tspan>'
            )
        elif line_class == "ag-mark":
            text = f'<tspan font-weight="bold">{text}</tspan>'
        parts.append(
            f'<text class="{line_class}" x="{_n(box.cx)}" y="{_n(baseline)}" text-anchor="middle">{text}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Entry points


def svg_for(
    namespace: Mapping[str, object],
    names: Iterable[str],
    *,
    title: str | None = None,
    id_prefix: str = "",
    max_nodes: int = DEFAULT_MAX_NODES,
    collapse: str = "auto",
) -> str:
    graph = build(namespace, list(names), max_nodes=max_nodes, collapse=collapse)
    return render_svg(graph, id_prefix=id_prefix, title=title)


def emit(namespace: Mapping[str, object], spec: Mapping[str, object]) -> None:
    """Print the diagram `spec` asks for between markers (run after a snippet, in its namespace).

    spec: {"tensors": [...], "title": str, "id_prefix": str, "max_nodes": int, "collapse": str}.
    A GraphError is printed between error markers instead, for the build to report.
    """
    try:
        svg = svg_for(
            namespace,
            spec["tensors"],
            title=spec.get("title"),
            id_prefix=spec.get("id_prefix", ""),
            max_nodes=spec.get("max_nodes", DEFAULT_MAX_NODES),
            collapse=spec.get("collapse", "auto"),
        )
    except GraphError as problem:
        print(f"\n{ERROR_BEGIN}{problem}{ERROR_END}", flush=True)
        return
    print(f"\n{GRAPH_BEGIN}{svg}{GRAPH_END}", flush=True)


def extract(output: str) -> tuple[str | None, str | None]:
    """(svg, error) from a run's output: whichever `emit` printed last, the other None."""
    svg_at = output.rfind(GRAPH_BEGIN)
    error_at = output.rfind(ERROR_BEGIN)
    if error_at > svg_at:
        end = output.find(ERROR_END, error_at)
        if end != -1:
            return None, output[error_at + len(ERROR_BEGIN) : end]
        return None, None
    if svg_at != -1:
        end = output.find(GRAPH_END, svg_at)
        if end != -1:
            return output[svg_at + len(GRAPH_BEGIN) : end], None
    return None, None
