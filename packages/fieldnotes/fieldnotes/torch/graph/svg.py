"""The graph as one inline SVG element, drawn in the MkDocs process.

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
The `<title>` and `<desc>` (`describe`) of the SVG say the same in words. The same graph gives the
same bytes: ids come from the graph's node ids, never from `id()`, and numbers are rounded to 0.1.
"""

from __future__ import annotations

import hashlib
from html import escape

from fieldnotes.torch.graph.describe import describe
from fieldnotes.torch.graph.layout import FONT, LINE_H, PAD_Y, Box, layout
from fieldnotes.torch.graph.model import MARKS, Graph, Node


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
        f'<desc id="{prefix}-desc">{escape(describe(graph))}</desc>',
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
                f'font-size="{_n(FONT)}" fill="currentColor" stroke="none"{anchor}>{escape(label)}</text>'
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
        line_class = "ag-title" if i == 0 else ("ag-mark" if line.startswith(MARKS) else "ag-detail")
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
