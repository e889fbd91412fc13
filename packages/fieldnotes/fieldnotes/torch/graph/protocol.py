"""How a diagram crosses from the snippet's process to the MkDocs process: as JSON between markers in
what the snippet's process prints (the runner captures it with the snippet's own output)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from fieldnotes.torch.graph import replay
from fieldnotes.torch.graph.build import build
from fieldnotes.torch.graph.model import DEFAULT_MAX_NODES, Graph, GraphError

GRAPH_BEGIN = "<<<fieldnotes-autograd-graph>>>"
GRAPH_END = "<<<end-fieldnotes-autograd-graph>>>"
ERROR_BEGIN = "<<<fieldnotes-autograd-graph-error>>>"
ERROR_END = "<<<end-fieldnotes-autograd-graph-error>>>"
STEPS_BEGIN = "<<<fieldnotes-backward-steps>>>"
STEPS_END = "<<<end-fieldnotes-backward-steps>>>"


def emit(namespace: Mapping[str, object], spec: Mapping[str, object]) -> None:
    """Print the graph `spec` asks for between markers (run after a snippet, in its namespace).

    spec: {"tensors": [...], "max_nodes": int, "collapse": str}. A GraphError is printed between error
    markers instead, for the build to report. The recorded backward pass (`backward`, installed before
    the snippet ran), if any, is printed first, as steps, and the graph's boxes name their keys.
    """
    recorded = emit_steps(namespace)
    try:
        graph = build(
            namespace,
            spec["tensors"],
            max_nodes=spec.get("max_nodes", DEFAULT_MAX_NODES),
            collapse=spec.get("collapse", "auto"),
            keys=replay.keys() if recorded else None,
        )
    except GraphError as problem:
        print(f"\n{ERROR_BEGIN}{problem}{ERROR_END}", flush=True)
        return
    print(f"\n{GRAPH_BEGIN}{json.dumps(graph.to_data())}{GRAPH_END}", flush=True)


def emit_steps(namespace: Mapping[str, object]) -> bool:
    """Print the steps of the backward passes recorded in this process between markers; whether any were."""
    steps = replay.steps(namespace)
    if steps:
        print(f"\n{STEPS_BEGIN}{json.dumps(steps)}{STEPS_END}", flush=True)
    return bool(steps)


def extract_steps(output: str) -> list[dict] | None:
    """The steps `emit_steps` printed, or None."""
    begin = output.rfind(STEPS_BEGIN)
    end = output.find(STEPS_END, begin)
    if begin == -1 or end == -1:
        return None
    return json.loads(output[begin + len(STEPS_BEGIN) : end])


def own_output(output: str) -> str:
    """What the snippet printed itself: the output before the first marker `emit` printed (and the
    newline `emit` printed before it)."""
    at = min((i for i in (output.find(m) for m in (STEPS_BEGIN, GRAPH_BEGIN, ERROR_BEGIN)) if i != -1), default=-1)
    return output if at == -1 else output[: at - 1]


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
