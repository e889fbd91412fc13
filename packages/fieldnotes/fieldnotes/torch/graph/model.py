"""The graph as plain data: what `build` makes in the snippet's process and the MkDocs process draws."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

DEFAULT_MAX_NODES = 30
COLLAPSE_MODES = ("auto", "none", "chains", "modules", "chains+modules")
MARKS = ("retain_grad()", "register_hook", "post-accumulate hook")
"""The lines of a box that mark retain_grad() and hooks."""


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
    keys: tuple[str, ...] = ()
    """The keys of the recorded backward pass's steps (`backward`) of the objects it stands for."""
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
        from fieldnotes.torch.graph.describe import describe  # which reads this module

        return describe(self)

    def to_data(self) -> dict:
        """The graph as JSON-able data (without the live objects in `Node.ref`)."""
        return {
            "nodes": [{f.name: getattr(n, f.name) for f in fields(Node) if f.name != "ref"} for n in self.nodes],
            "edges": [{f.name: getattr(e, f.name) for f in fields(Edge)} for e in self.edges],
            "names": list(self.names),
            "collapsed": self.collapsed,
        }

    @classmethod
    def from_data(cls, data: dict) -> Graph:
        def node(d: dict) -> Node:
            return Node(**{k: tuple(v) if isinstance(v, list) else v for k, v in d.items()})

        return cls(
            nodes=tuple(node(d) for d in data["nodes"]),
            edges=tuple(Edge(**d) for d in data["edges"]),
            names=tuple(data["names"]),
            collapsed=data["collapsed"],
        )
