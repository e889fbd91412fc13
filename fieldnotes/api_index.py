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

import dataclasses
import json
import posixpath
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File

from fieldnotes import api_names, cache
from fieldnotes.api_names import BUILTIN_ATTRIBUTES, CLASSES, Facts, read_uses
from fieldnotes.examples import SNIPPETS_DIR
from fieldnotes.pages import snippets_of

log = get_plugin_logger("api_index")

INDEX_URI = "api.md"
DESCRIPTION = "Every torch name the examples use, with links to those examples and to PyTorch's documentation."
DOCS = "https://docs.pytorch.org/docs/stable/"


def anchor(snippet: str) -> str:
    """The id of the block that shows snippets/X/Y.py on its page: ex-X-Y."""
    return "ex-" + snippet.removeprefix(f"{SNIPPETS_DIR}/").removesuffix(".py").replace("/", "-")


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


def torch_facts(root: Path, paths: set[str], attributes: set[str]) -> Facts:
    """Ask the installed torch, in a subprocess; remembered while torch and the names are the same."""
    wanted = {"paths": sorted(paths), "classes": sorted(CLASSES), "attributes": sorted(attributes)}
    request = json.dumps(wanted)

    def ask() -> dict:
        result = subprocess.run(
            [sys.executable, "-c", _FACTS_SCRIPT], input=request, capture_output=True, text=True, check=True
        )
        return json.loads(result.stdout)

    known = cache.memo(root, "api index facts " + _FACTS_SCRIPT, request.encode(), ask)
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


def reused_index(root: Path, examples: list[Example]) -> Index:
    """build_index's result, kept in the project's cache while the examples (their pages, titles and code),
    this code and what is installed are the same: reading every snippet twice costs a tenth of a second
    that a prose edit would otherwise pay again."""
    codes = [(root / e.snippet).read_text(encoding="utf-8") if (root / e.snippet).is_file() else None for e in examples]
    key = json.dumps([[dataclasses.astuple(e), code] for e, code in zip(examples, codes, strict=True)]).encode()

    def compute() -> dict:
        index = build_index(root, examples)
        return {
            "entries": _stored(index.entries),
            "documented": index.documented,
            "unattributed": _stored(index.unattributed),
        }

    found = cache.memo(root, f"api index {_CODE}", key, compute)
    return Index(_loaded(found["entries"]), found["documented"], _loaded(found["unattributed"]))


def _stored(by_name: dict[str, list[Example]]) -> dict[str, list[tuple]]:
    return {name: [dataclasses.astuple(e) for e in examples] for name, examples in by_name.items()}


def _loaded(by_name: dict[str, list[list]]) -> dict[str, list[Example]]:
    return {name: [Example(*e) for e in examples] for name, examples in by_name.items()}


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
            result["index"] = reused_index(root, page_examples(docs_dir, pages))
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
