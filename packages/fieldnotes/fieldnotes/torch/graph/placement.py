"""Two steps of the layout (layout.py): x positions in a row closest to where each node wants to be, and
where several edges meet one box."""

from __future__ import annotations

from fieldnotes.torch.graph.model import Graph

GAP_X = 16.0  # between neighbours in a layer


def isotonic(wanted: list[float], widths: list[float]) -> list[float]:
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


def spread_ports(routes, boxes, graph: Graph) -> None:
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
