"""Which torch names an example's code uses, read with `ast`: the API index's reader (fieldnotes/torch/api_index.py).

Imports are resolved through their aliases (`import torch.nn as nn`, `from torch import nn`); an attribute
such as `.retain_grad()` is credited to the one class in CLASSES that has it, by what the installed torch
says (Facts), or by what the code shows the receiver to be."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# The classes whose attributes are attributed by name, with the name the index shows them under.
CLASSES = {
    "torch.Tensor": "Tensor",
    "torch.nn.Module": "nn.Module",
    "torch.autograd.graph.Node": "torch.autograd.graph.Node",
    "torch.utils.hooks.RemovableHandle": "torch.utils.hooks.RemovableHandle",
}
BUILTIN_ATTRIBUTES = frozenset(
    name for kind in (object, list, dict, set, tuple, str, bytes, int, float, bool) for name in dir(kind)
)
# Attributes whose value is known from the name alone, to tell which class a receiver is.
_ATTRIBUTE_KINDS = {
    "grad_fn": "torch.autograd.graph.Node",
    "grad": "torch.Tensor",
    "weight": "torch.Tensor",
    "bias": "torch.Tensor",
    "data": "torch.Tensor",
}


@dataclass
class Facts:
    paths: dict[str, dict]
    """torch path -> {"kind": module/class/function/value, "returns": the class a call returns, or None}"""
    classes: dict[str, dict[str, bool]]
    """class -> {attribute it has: whether that attribute has a docstring}"""

    def returns(self, path: str) -> str | None:
        return (self.paths.get(path) or {}).get("returns")


# --------------------------------------------------------------------------------------------------
# Reading an example's code


@dataclass
class Uses:
    """What one example's code uses: torch paths reached through imports, and attributes of other
    things with the kind of their receiver when the code shows it (None otherwise)."""

    paths: set[str] = field(default_factory=set)
    attributes: set[tuple[str, str | None]] = field(default_factory=set)


class _Reader(ast.NodeVisitor):
    def __init__(self, facts: Facts | None) -> None:
        self.facts = facts
        self.aliases: dict[str, str] = {}  # local name -> torch path
        self.other_modules: set[str] = set()  # local names of modules that are not torch
        self.kinds: dict[str, str | None] = {}  # variable -> class of its value (None: unknown)
        self.module_classes: set[str] = set()  # classes defined here that derive from nn.Module
        self.torch_layers: set[str] = set()  # variables holding an instance of one of torch's nn classes
        self.uses = Uses()

    def read(self, tree: ast.Module) -> Uses:
        for node in ast.walk(tree):  # bindings first: a use may come before its line in the walk order
            if isinstance(node, ast.Import):
                for name in node.names:
                    local = name.asname or name.name.split(".")[0]
                    target = name.name if name.asname else local
                    self._bind_module(local, target)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for name in node.names:
                    self._bind_module(name.asname or name.name, f"{node.module}.{name.name}")
            elif isinstance(node, ast.ClassDef):
                if any(
                    self._path(base) == "torch.nn.Module" or getattr(base, "id", None) in self.module_classes
                    for base in node.bases
                ):
                    self.module_classes.add(node.name)
        for _ in range(2):  # twice: a variable may be assigned from one assigned later in the walk
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    self._bind(node.targets[0], self._kind(node.value))
                    value_path = self._path(node.value.func) if isinstance(node.value, ast.Call) else None
                    if value_path and isinstance(node.targets[0], ast.Name) and self.facts is not None:
                        if self.facts.returns(value_path) == "torch.nn.Module":  # e.g. nn.Linear(4, 2)
                            self.torch_layers.add(node.targets[0].id)
                elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                    # for p in m.parameters() / for name, p in m.named_parameters(): p is a tensor
                    method = getattr(node.iter.func, "attr", None)
                    if method == "parameters":
                        self._bind(node.target, "torch.Tensor")
                    elif method == "named_parameters" and isinstance(node.target, ast.Tuple):
                        self._bind(node.target.elts[-1], "torch.Tensor")
        self.visit(tree)
        return self.uses

    def _bind(self, target: ast.expr, kind: str | None) -> None:
        if isinstance(target, ast.Name):  # a variable assigned values of two kinds has no kind
            name = target.id
            self.kinds[name] = kind if self.kinds.get(name, kind) == kind else None

    def _bind_module(self, local: str, target: str) -> None:
        if target == "torch" or target.startswith("torch."):
            self.aliases[local] = target
        else:
            self.other_modules.add(local)

    def _path(self, node: ast.expr) -> str | None:
        """The torch path of a chain of names rooted at a torch import (`nn.functional.relu`)."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.aliases:
            return ".".join([self.aliases[node.id], *reversed(parts)])
        return None

    def _root_is_other_module(self, node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.other_modules

    def _kind(self, node: ast.expr) -> str | None:
        """The class of the value of `node`, where the code shows it."""
        if isinstance(node, ast.Name):
            return self.kinds.get(node.id)
        if isinstance(node, ast.Attribute):
            return _ATTRIBUTE_KINDS.get(node.attr)
        if isinstance(node, ast.BinOp):
            kinds = {self._kind(node.left), self._kind(node.right)}
            return "torch.Tensor" if "torch.Tensor" in kinds else None
        if isinstance(node, ast.Subscript):  # a tensor's element is a tensor, a Sequential's a module
            return self._kind(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in self.module_classes:
                return "torch.nn.Module"
            if isinstance(func, ast.Name) and func.id in self.torch_layers:
                return "torch.Tensor"  # what torch's own layers return
            path = self._path(func)
            if path is not None and self.facts is not None:
                return self.facts.returns(path)
            if isinstance(func, ast.Attribute):
                if func.attr.startswith("register_") and func.attr.endswith("hook"):
                    return "torch.utils.hooks.RemovableHandle"
                if func.attr in ("to", "requires_grad_"):  # both a tensor's and a module's return their kind
                    return self._kind(func.value)
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        path = self._path(node)
        if path is not None:
            self.uses.paths.add(path)  # the whole chain is one name: its prefixes are not uses
            return
        if not self._root_is_other_module(node) and not node.attr.startswith("_"):
            self.uses.attributes.add((node.attr, self._kind(node.value)))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.aliases:
            self.uses.paths.add(self.aliases[node.id])


def read_uses(code: str, facts: Facts | None = None) -> Uses:
    return _Reader(facts).read(ast.parse(code))
