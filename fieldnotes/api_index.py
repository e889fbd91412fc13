"""The API index page: every torch name the examples use, each with the examples that use it (page and
anchor) and its page in PyTorch's documentation. MkDocs hooks, registered in mkdocs.yml under `hooks:`.

The index is read from the code when the site builds, never written by hand, so a new example is in
it as soon as a page includes it. Its examples are the snippet files the pages include in executed
blocks (helpers, `_*.py`, are not shown on any page: a name used only inside a helper is not listed).

How a name is read from an example (Python's `ast`; the example is not run for this):
- a name reached from an import of torch, through any alias (`import torch.nn as nn`,
  `from torch import nn`, `from torch.autograd import grad`), is that torch name, if torch has it;
- an attribute of anything else (`b.retain_grad()`, `a.is_leaf`, `net.fc.register_full_backward_hook`)
  is attributed to the one class among `torch.Tensor`, `torch.nn.Module`, `torch.autograd.graph.Node`
  and `torch.utils.hooks.RemovableHandle` that has it (their `dir()`, read from the installed torch at
  build time), unless Python's built-in types have it too. When several have it (`to`,
  `requires_grad_`, `register_hook` is also Node's, `remove` is also list's), the receiver decides
  when the code shows what it is (a variable assigned `torch.ones(...)`, `nn.Linear(...)`,
  `x.grad_fn`, `t.register_hook(...)`); otherwise the use is not listed, and the page says so.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File

from fieldnotes import cache
from fieldnotes.examples import SNIPPETS_DIR
from fieldnotes.page_notebook import snippets_of

log = get_plugin_logger("api_index")

INDEX_URI = "api.md"
DESCRIPTION = "Every torch name the examples use, with links to those examples and to PyTorch's documentation."
DOCS = "https://docs.pytorch.org/docs/stable/"
# The classes whose attributes are attributed by name, with the name the index shows them under.
CLASSES = {
    "torch.Tensor": "Tensor",
    "torch.nn.Module": "nn.Module",
    "torch.autograd.graph.Node": "torch.autograd.graph.Node",
    "torch.utils.hooks.RemovableHandle": "torch.utils.hooks.RemovableHandle",
}
_BUILTIN_ATTRIBUTES = frozenset(
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


def anchor(snippet: str) -> str:
    """The id of the block that shows snippets/X/Y.py on its page: ex-X-Y."""
    return "ex-" + snippet.removeprefix(f"{SNIPPETS_DIR}/").removesuffix(".py").replace("/", "-")


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


# --------------------------------------------------------------------------------------------------
# What the installed torch says about those names (in a subprocess: the build process never imports torch)

_FACTS_SCRIPT = r"""
import importlib, json, sys
import torch
wanted = json.load(sys.stdin)

def resolve(path):
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i]))
    return obj

aten = set(dir(torch._C._VariableFunctions))
paths = {}
for path in wanted["paths"]:
    try:
        obj = resolve(path)
    except Exception:
        continue
    kind = ("module" if type(obj).__name__ == "module" else "class" if isinstance(obj, type)
            else "function" if callable(obj) else "value")
    module_class = kind == "class" and issubclass(obj, torch.nn.Module)
    tensor = (path.count(".") == 1 and path.split(".")[1] in aten) or isinstance(obj, torch.Tensor)
    paths[path] = {"kind": kind, "returns": "torch.nn.Module" if module_class else "torch.Tensor" if tensor else None}
def has_docstring(member):
    return not isinstance(member, (str, type(None))) and bool((member.__doc__ or "").strip())

classes = {}
for name in wanted["classes"]:
    cls = resolve(name)
    classes[name] = {a: has_docstring(getattr(cls, a, None)) for a in wanted["attributes"] if a in dir(cls)}
print(json.dumps({"paths": paths, "classes": classes}))
"""


@dataclass
class Facts:
    paths: dict[str, dict]
    """torch path -> {"kind": module/class/function/value, "returns": the class a call returns, or None}"""
    classes: dict[str, dict[str, bool]]
    """class -> {attribute it has: whether that attribute has a docstring}"""

    def returns(self, path: str) -> str | None:
        return (self.paths.get(path) or {}).get("returns")


def torch_facts(root: Path, paths: set[str], attributes: set[str]) -> Facts:
    """Ask the installed torch, in a subprocess; remembered while torch and the names are the same."""
    wanted = {"paths": sorted(paths), "classes": sorted(CLASSES), "attributes": sorted(attributes)}
    request = json.dumps(wanted)
    key = cache.content_key(root, "api index facts " + _FACTS_SCRIPT, request.encode())
    known = cache.load_data(root, key)
    if known is None:
        result = subprocess.run(
            [sys.executable, "-c", _FACTS_SCRIPT], input=request, capture_output=True, text=True, check=True
        )
        known = json.loads(result.stdout)
        cache.store_data(root, key, known)
    return Facts(known["paths"], known["classes"])


# --------------------------------------------------------------------------------------------------
# The index


@dataclass(frozen=True)
class Example:
    snippet: str  # snippets/x/y.py
    page: str  # the page's source, e.g. faq/tensor-hooks.md
    title: str  # the page's title


@dataclass
class Index:
    entries: dict[str, list[Example]]  # shown name -> the examples using it, in page order
    documented: dict[str, bool]  # shown name -> whether its documentation page can be named
    unattributed: dict[str, list[Example]]  # attribute name -> examples where its class is unknown


def page_examples(docs_dir: Path, pages: list[str]) -> list[Example]:
    """The examples of `pages` (sources under docs_dir), in their order."""
    examples = []
    for page in pages:
        markdown = (docs_dir / page).read_text(encoding="utf-8")
        heading = re.search(r"^# (.+)$", markdown, re.MULTILINE)
        title = heading[1].strip() if heading else page
        examples += [Example(snippet, page, title) for snippet in snippets_of(markdown)]
    return examples


def build_index(root: Path, examples: list[Example]) -> Index:
    present = [e.snippet for e in examples if (root / e.snippet).is_file()]  # a missing one fails the build anyway
    codes = {snippet: (root / snippet).read_text(encoding="utf-8") for snippet in present}
    first_reading = {snippet: read_uses(code) for snippet, code in codes.items()}
    facts = torch_facts(
        root,
        {p for uses in first_reading.values() for p in uses.paths},
        {a for uses in first_reading.values() for a, _ in uses.attributes},
    )
    index = Index({}, {}, {})
    for example in examples:
        if example.snippet not in codes:
            continue
        uses = read_uses(codes[example.snippet], facts)
        names = set()
        for path in uses.paths:
            known = facts.paths.get(path)
            if known is None or known["kind"] == "module":
                continue
            cls, _, attribute = path.rpartition(".")
            if cls in CLASSES:
                names.add(f"{CLASSES[cls]}.{attribute}")
                index.documented[f"{CLASSES[cls]}.{attribute}"] = _documented(facts, cls, attribute)
            else:
                names.add(path)
                index.documented[path] = known["kind"] in ("class", "function")
        for attribute, kind in uses.attributes:
            owners = [cls for cls in CLASSES if attribute in facts.classes[cls]]
            if not owners:
                continue
            if kind in owners:
                owner = kind
            elif len(owners) == 1 and attribute not in _BUILTIN_ATTRIBUTES:
                owner = owners[0]
            else:
                index.unattributed.setdefault(attribute, [])
                if example not in index.unattributed[attribute]:
                    index.unattributed[attribute].append(example)
                continue
            name = f"{CLASSES[owner]}.{attribute}"
            names.add(name)
            index.documented[name] = _documented(facts, owner, attribute)
        for name in names:
            index.entries.setdefault(name, []).append(example)
    return index


def _documented(facts: Facts, cls: str, attribute: str) -> bool:
    """Whether PyTorch's documentation has an entry for the member. Every member of Module and Node is
    documented; Tensor's reference lists only those with a docstring (not `grad_fn`, for one)."""
    return facts.classes[cls].get(attribute, False) if cls == "torch.Tensor" else True


def official_url(name: str, documented: bool = True) -> str | None:
    """The address of `name`'s entry in PyTorch's documentation, by the rule its pages follow; None when
    the rule names none (a private name, a value, a member without a docstring)."""
    if not documented or any(part.startswith("_") for part in name.split(".")):
        return None
    if name.startswith("nn.Module."):  # the class page documents its methods
        return f"{DOCS}generated/torch.nn.Module.html#torch.{name}"
    full = name if name.startswith("torch.") else f"torch.{name}"
    module = full.rpartition(".")[0]
    if module == "torch.nn.init":  # one page for the module
        return f"{DOCS}nn.init.html#{full}"
    if full.startswith("torch.utils.hooks."):  # not in the documentation
        return None
    full = {"torch.nn.Parameter": "torch.nn.parameter.Parameter"}.get(full, full)  # documented where defined
    return f"{DOCS}generated/{full}.html"


def _group(name: str) -> str:
    if name.startswith("Tensor."):
        return "Tensor"
    if name.startswith("nn.Module."):
        return "nn.Module"
    return "torch"


_GROUP_TITLES = {
    "Tensor": "Tensor methods and attributes",
    "nn.Module": "nn.Module methods",
    "torch": "Functions, classes and other torch names",
}


def index_markdown(index: Index, titles: dict[str, str] | None = None, page_uri: str = INDEX_URI) -> str:
    """The page; `titles` are the pages' titles in the navigation (shorter than their headings)."""
    titles = titles or {}

    def link(example: Example) -> str:
        target = posixpath.relpath(example.page, posixpath.dirname(page_uri) or ".")
        return f"[{posixpath.basename(example.snippet)}]({target}#{anchor(example.snippet)})"

    lines = [
        "# API index",
        "",
        "Every torch name the examples on this site use, and, under each, the examples that use it",
        "(the page, then the example's file name; a link opens the page at the example), with the name's",
        "page in PyTorch's documentation. The list is read from the examples' code whenever the site is",
        "built: names reached through an import of torch, and attributes such as `.retain_grad()` or",
        "`.is_leaf`, attributed to the one torch class that has them (`Tensor`, `nn.Module`, autograd's",
        "`Node`, a hook's `RemovableHandle`).",
        "",
    ]
    for group in ("Tensor", "nn.Module", "torch"):
        names = sorted((n for n in index.entries if _group(n) == group), key=str.lower)
        if not names:
            continue
        lines += [f"## {_GROUP_TITLES[group]}", ""]
        for name in names:
            url = official_url(name, index.documented.get(name, False))
            docs = f"[PyTorch documentation]({url})" if url else "no page of its own in PyTorch's documentation"
            lines += [f"### `{name}`", "", f"{docs}. Used in:", ""]
            by_page: dict[str, list[Example]] = {}
            for example in index.entries[name]:
                by_page.setdefault(example.page, []).append(example)
            for examples in by_page.values():
                title = titles.get(examples[0].page, examples[0].title)
                lines.append(f"- {title}: " + ", ".join(link(e) for e in examples))
            lines.append("")
    if index.unattributed:
        lines += [
            "## Not listed",
            "",
            "These attributes belong to more than one of those classes (or to Python's own types too), and",
            "the code does not show which one the receiver is, so these uses are left out above:",
            "",
        ]
        for attribute in sorted(index.unattributed):
            lines.append(f"- `.{attribute}`: " + ", ".join(link(e) for e in index.unattributed[attribute]))
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# MkDocs hooks

_state: dict = {}
# The executed block's title, as markdown-exec writes it (and as fieldnotes makes it a download link).
_TITLE = re.compile(rf'<span class="filename">((?:<a [^>]*>)?({SNIPPETS_DIR}/[^<]+\.py))')


# Before the link checker reads the files: the index links to every example.
@event_priority(50)
def on_files(files, config):
    root = Path(config.config_file_path).parent
    docs_dir = Path(config.docs_dir)
    pages = [f.src_uri for f in files.documentation_pages() if f.src_uri.endswith(".md")]
    placeholder = "# API index\n"  # replaced in on_page_markdown, once the index is read
    files.append(File.generated(config, INDEX_URI, content=placeholder))
    result: dict = {}

    def work() -> None:
        try:
            result["index"] = build_index(root, page_examples(docs_dir, pages))
        except Exception as error:  # reported when the page is rendered, which fails the strict build
            result["error"] = error

    thread = threading.Thread(target=work, name="api-index", daemon=True)
    thread.start()
    _state.update(thread=thread, result=result)
    return files


def on_nav(nav, config, files):
    _state["titles"] = {page.file.src_uri: page.title for page in nav.pages if page.title}
    return nav


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != INDEX_URI or "thread" not in _state:
        return markdown
    _state["thread"].join()
    if "error" in _state["result"]:
        log.warning(f"the API index could not be read from the examples: {_state['result']['error']!r}")
        return markdown
    # Found by search, but after the pages that explain a name: a reader searching `is_leaf` wants the
    # lesson first, the index's entry (which links to it) next.
    page.meta.setdefault("search", {}).setdefault("boost", 0.001)
    page.meta.setdefault("description", DESCRIPTION)
    return index_markdown(_state["result"]["index"], _state.get("titles"))


def on_page_content(html, page, config, files):
    """Give each executed block the id the index links to."""
    if page.file.src_uri == INDEX_URI:
        # The sidebar's table of contents lists the groups, not every entry again (10 KB of the page).
        for heading in page.toc:
            for group in heading.children:
                group.children = []
    seen: dict[str, int] = {}

    def add_id(match: re.Match) -> str:
        name = anchor(match[2])
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}-{seen[name]}"
        if page.present_anchor_ids is not None:  # MkDocs checks links to anchors against these
            page.present_anchor_ids.add(name)
        return f'<span class="filename" id="{name}">{match[1]}'

    return _TITLE.sub(add_id, html)
