"""The API index page: every torch name the examples use, each with the examples that use it (page and
anchor) and its page in PyTorch's documentation: the plugin's `api_index` feature (`fieldnotes.torch.api_page`).

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

import dataclasses
import hashlib
import inspect
import json
import re
from dataclasses import dataclass

from fieldnotes import cache, runner
from fieldnotes.blocks import Page
from fieldnotes.cache import Store
from fieldnotes.jobs import Scheduler
from fieldnotes.torch import api_names
from fieldnotes.torch.api_names import BUILTIN_ATTRIBUTES, CLASSES, Facts, read_uses

__all__ = ["Index", "PageExample", "page_examples", "read_uses", "reused_index", "torch_facts"]

# --------------------------------------------------------------------------------------------------
# What the installed torch says about those names (in a process forked from the fork server, which has
# imported torch: the build process never imports torch)


def _resolve(path: str):
    import importlib

    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[:i]))
    return obj


def _has_docstring(member) -> bool:
    return not isinstance(member, (str, type(None))) and bool((member.__doc__ or "").strip())


def ask_torch(wanted: dict) -> dict:
    """What torch says of `wanted`'s paths (their kind; whether they return a tensor or a module) and of
    its classes' attributes (whether each has a docstring). Run where torch is imported."""
    import torch

    aten = set(dir(torch._C._VariableFunctions))
    paths = {}
    for path in wanted["paths"]:
        try:
            obj = _resolve(path)
        except Exception:  # noqa: BLE001 - not a name torch has
            continue
        kind = (
            "module" if type(obj).__name__ == "module" else "class" if isinstance(obj, type)
            else "function" if callable(obj) else "value"
        )  # fmt: skip
        module_class = kind == "class" and issubclass(obj, torch.nn.Module)
        tensor = (path.count(".") == 1 and path.split(".")[1] in aten) or isinstance(obj, torch.Tensor)
        returns = "torch.nn.Module" if module_class else "torch.Tensor" if tensor else None
        paths[path] = {"kind": kind, "returns": returns}
    classes = {}
    for name in wanted["classes"]:
        cls = _resolve(name)
        classes[name] = {a: _has_docstring(getattr(cls, a, None)) for a in wanted["attributes"] if a in dir(cls)}
    return {"paths": paths, "classes": classes}


# The code that asks torch, named in the key under which its answers are kept.
_FACTS_CODE = hashlib.sha256("".join(inspect.getsource(f) for f in (_resolve, _has_docstring, ask_torch)).encode())


def torch_facts(store: Store, scheduler: Scheduler, paths: set[str], attributes: set[str]) -> Facts:
    """Ask the installed torch, as one run of `scheduler`; remembered while torch and the names are
    the same."""
    wanted = {"paths": sorted(paths), "classes": sorted(CLASSES), "attributes": sorted(attributes)}
    request = json.dumps(wanted)

    def ask() -> dict:
        return scheduler.submit_call(lambda: runner.call(ask_torch, wanted)).result()

    known = store.memo(f"api index facts {_FACTS_CODE.hexdigest()}", request.encode(), ask)
    return Facts(known["paths"], known["classes"])


# --------------------------------------------------------------------------------------------------
# The index


@dataclass(frozen=True)
class PageExample:
    snippet: str  # snippets/x/y.py
    page: str  # the page's source, e.g. faq/tensor-hooks.md
    title: str  # the page's title


@dataclass
class Index:
    entries: dict[str, list[PageExample]]  # shown name -> the examples using it, in page order
    documented: dict[str, bool]  # shown name -> whether its documentation page can be named
    unattributed: dict[str, list[PageExample]]  # attribute name -> examples where its class is unknown


def page_examples(pages: dict[str, Page]) -> list[PageExample]:
    """The examples of `pages` (parsed, by source path), in their order."""
    examples = []
    for uri, page in pages.items():
        heading = re.search(r"^# (.+)$", page.markdown, re.MULTILINE)
        title = heading[1].strip() if heading else uri
        examples += [PageExample(snippet, uri, title) for snippet in page.snippets]
    return examples


def build_index(store: Store, scheduler: Scheduler, examples: list[PageExample]) -> Index:
    root = store.root
    present = [e.snippet for e in examples if (root / e.snippet).is_file()]  # a missing one fails the build anyway
    codes = {snippet: (root / snippet).read_text(encoding="utf-8") for snippet in present}
    first_reading = {snippet: read_uses(code) for snippet, code in codes.items()}
    facts = torch_facts(
        store,
        scheduler,
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
            elif len(owners) == 1 and attribute not in BUILTIN_ATTRIBUTES:
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


# The code that reads the index, named in the key under which a build keeps it.
_CODE = cache.code_digest(__file__, api_names.__file__)


def reused_index(store: Store, scheduler: Scheduler, examples: list[PageExample]) -> Index:
    """build_index's result, kept in the project's cache while the examples (their pages, titles and code),
    this code and what is installed are the same: reading every snippet twice is work
    that a prose edit would otherwise pay again."""
    root = store.root
    codes = [(root / e.snippet).read_text(encoding="utf-8") if (root / e.snippet).is_file() else None for e in examples]
    key = json.dumps([[dataclasses.astuple(e), code] for e, code in zip(examples, codes, strict=True)]).encode()

    def compute() -> dict:
        index = build_index(store, scheduler, examples)
        return {
            "entries": _stored(index.entries),
            "documented": index.documented,
            "unattributed": _stored(index.unattributed),
        }

    found = store.memo(f"api index {_CODE}", key, compute)
    return Index(_loaded(found["entries"]), found["documented"], _loaded(found["unattributed"]))


def _stored(by_name: dict[str, list[PageExample]]) -> dict[str, list[tuple]]:
    return {name: [dataclasses.astuple(e) for e in examples] for name, examples in by_name.items()}


def _loaded(by_name: dict[str, list[list]]) -> dict[str, list[PageExample]]:
    return {name: [PageExample(*e) for e in examples] for name, examples in by_name.items()}


def _documented(facts: Facts, cls: str, attribute: str) -> bool:
    """Whether PyTorch's documentation has an entry for the member. Every member of Module and Node is
    documented; Tensor's reference lists only those with a docstring (not `grad_fn`, for one)."""
    return facts.classes[cls].get(attribute, False) if cls == "torch.Tensor" else True
