"""How a diagram crosses from the snippet's process to the MkDocs process: as JSON between markers in
what the snippet's process prints (the runner captures it with the snippet's own output)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from fieldnotes.torch.graph.build import build
from fieldnotes.torch.graph.model import DEFAULT_MAX_NODES, Graph, GraphError

GRAPH_BEGIN = "<<<fieldnotes-autograd-graph>>>"
GRAPH_END = "<<<end-fieldnotes-autograd-graph>>>"
ERROR_BEGIN = "<<<fieldnotes-autograd-graph-error>>>"
ERROR_END = "<<<end-fieldnotes-autograd-graph-error>>>"


def emit(namespace: Mapping[str, object], spec: Mapping[str, object]) -> None:
    """Print the graph `spec` asks for between markers (run after a snippet, in its namespace).

    spec: {"tensors": [...], "max_nodes": int, "collapse": str}. A GraphError is printed between error
    markers instead, for the build to report.
    """
    try:
        graph = build(
            namespace,
            spec["tensors"],
            max_nodes=spec.get("max_nodes", DEFAULT_MAX_NODES),
            collapse=spec.get("collapse", "auto"),
        )
    except GraphError as problem:
        print(f"\n{ERROR_BEGIN}{problem}{ERROR_END}", flush=True)
        return
    print(f"\n{GRAPH_BEGIN}{json.dumps(graph.to_data())}{GRAPH_END}", flush=True)


def extract(output: str) -> tuple[Graph | None, str | None]:
    """(graph, error) from a run's output: whichever `emit` printed last, the other None."""
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
            return Graph.from_data(json.loads(output[svg_at + len(GRAPH_BEGIN) : end])), None
    return None, None
