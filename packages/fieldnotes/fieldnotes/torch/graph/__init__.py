"""Autograd graph diagrams, drawn from the tensors an executed snippet left behind.

Five parts, in two processes:

- `build` (the snippet's process, which has torch and the live tensors): walks the autograd graph
  from the named tensors and collapses it when it is big, into a `Graph` (`model`: plain data,
  nodes and edges, so tests can check it without parsing SVG);
- `protocol`: `emit` prints that graph as JSON between markers after the snippet ran; `extract`
  reads it back from the run's output in the MkDocs process;
- `describe` (the graph in words), `layout` (pure geometry) and `svg` (one inline SVG element) run
  in the MkDocs process, which never imports torch for them.

The ```autograd-graph fence (`fieldnotes.torch.graph_fence`) drives them; its cache key covers every
module of this package.
"""

from fieldnotes.torch.graph.build import build
from fieldnotes.torch.graph.layout import GAP_X, MAX_ROW, layout
from fieldnotes.torch.graph.model import COLLAPSE_MODES, DEFAULT_MAX_NODES, Edge, Graph, GraphError, Node
from fieldnotes.torch.graph.protocol import emit, extract
from fieldnotes.torch.graph.svg import render_svg

__all__ = [
    "COLLAPSE_MODES",
    "DEFAULT_MAX_NODES",
    "GAP_X",
    "MAX_ROW",
    "Edge",
    "Graph",
    "GraphError",
    "Node",
    "build",
    "emit",
    "extract",
    "layout",
    "render_svg",
]
