"""The graph in words: the SVG's <desc>, for screen readers and search."""

from __future__ import annotations

from fieldnotes.torch.graph.model import MARKS, Graph


def describe(graph: Graph) -> str:
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
            extras = [line for line in n.lines if line.startswith(MARKS)]
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
