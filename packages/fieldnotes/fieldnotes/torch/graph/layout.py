"""Where each box and each edge goes: pure geometry, in the MkDocs process.

Why written here:
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
    this kind of graph, and importing it is slow in every diagram's fresh process.
Doing it here keeps the output byte-identical across builds by construction: no ids from
`id()`, no addresses, no set or hash ordering, and numbers rounded to 0.1.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldnotes.torch.graph.model import Graph, GraphError, Node
from fieldnotes.torch.graph.placement import GAP_X, isotonic, spread_ports

FONT = 13.0
CHAR_W = 7.9  # a monospace advance at 13 px (0.6 em, rounded up)
LINE_H = 17.0
PAD_X = 9.0
PAD_Y = 6.0
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
    spread_ports(routes, boxes, graph)
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
            for v, value in zip(row, isotonic(wanted, [width[v] for v in row]), strict=True):
                x[v] = value
    return x
