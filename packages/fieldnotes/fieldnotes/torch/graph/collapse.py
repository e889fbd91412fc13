"""Collapsing a big graph (see build.py's docstring): runs of single-in, single-out autograd nodes into
one node ("chains"), and each submodule's parameters with the nodes that only lead to them
("modules"). Plain data: the walked nodes (`build._Proto`) and edges, no torch."""

from __future__ import annotations

_MIN_CHAIN = 3  # shorter runs of single-in, single-out nodes are drawn as they are


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


def fold_modules(protos, edges, named_fns, members, target_of) -> None:
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


def fold_chains(protos, edges, named_fns, members, target_of) -> None:
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
