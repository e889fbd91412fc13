"""Probes of the generated API index page (/api/, built from fieldnotes/torch/api_index.py). The
oracle is this probe's own reading of the examples: Python's tokenizer (not the index's `ast` walk), names
written `torch.X...` or `nn.X...`, resolved by importing torch here, and attributes that only one of the
page's four classes has, matched by their name after a dot."""

from __future__ import annotations

import html
import importlib
import io
import re
import tokenize
import types
from pathlib import Path

import torch
import torch.nn as nn

from tests.conftest import ROOT

INTRO = "Every torch name the examples on this site use, each a link to its page in PyTorch's documentation"
# (attribute, the entry it must be listed under): attributes that Tensor, nn.Module, autograd's Node
# and RemovableHandle do not share, nor Python's own types
ONE_OWNER = {
    "retain_grad": "Tensor.retain_grad",
    "is_leaf": "Tensor.is_leaf",
    "retains_grad": "Tensor.retains_grad",
    "grad_fn": "Tensor.grad_fn",
    "register_post_accumulate_grad_hook": "Tensor.register_post_accumulate_grad_hook",
    "named_parameters": "nn.Module.named_parameters",
    "register_full_backward_hook": "nn.Module.register_full_backward_hook",
}


def shown_examples() -> dict[str, set[str]]:
    """snippet -> the pages that include it in an executed block."""
    shown: dict[str, set[str]] = {}
    for md in sorted((ROOT / "docs").rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        for found in re.finditer(r'```python exec="on"[^\n]*\n--8<-- "([^":]+\.py)(?::[^"]*)?"', text):
            shown.setdefault(f"snippets/{found[1]}", set()).add(md.relative_to(ROOT / "docs").as_posix())
    return shown


def code_tokens(path: Path) -> str:
    """The example's code without its comments and string literals, one space between tokens."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE):
            continue
        kept.append(token.string)
    return " ".join(kept)


def torch_names(code: str, nn_alias: bool) -> set[str]:
    """Dotted names reached from torch, down to the first that is not a module."""
    code = re.sub(r"\s*\.\s*", ".", code)
    names = set()
    for found in re.finditer(r"(?<![\w.])(torch|nn)((?:\.[A-Za-z_]\w*)+)", code):
        if found[1] == "nn" and not nn_alias:
            continue
        parts = ("torch.nn" if found[1] == "nn" else "torch").split(".") + found[2].strip(".").split(".")
        obj = torch
        for i, part in enumerate(parts[1:], start=2):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                obj = importlib.import_module(".".join(parts[:i]))
            if not isinstance(obj, types.ModuleType):
                names.add(".".join(parts[:i]))
                break
    return names


def index_sections(site: Path) -> dict[str, str]:
    """Entry name -> the text of its section of the built page."""
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert " ".join(INTRO.split()) in " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    pieces = re.split(r"(<h3[^>]*>.*?</h3>)", page, flags=re.S)
    sections = {}
    for heading, body in zip(pieces[1::2], pieces[2::2], strict=True):
        name = html.unescape(re.sub(r"<[^>]+>", "", heading)).replace("¶", "").strip()
        sections[name] = html.unescape(re.sub(r"<[^>]+>", " ", body.split("<h2", 1)[0]))
    return sections


def test_every_torch_name_of_an_example_is_listed_with_it(built_site):
    """Sentence: 'Every torch name the examples on this site use, each a link to its page in PyTorch's
    documentation, and, under each, the examples that use it'. Counter-cases: every name written
    `torch.X` or `nn.X` in the code of every example a page shows (attribute chains such as
    `torch._dynamo.config.skip_nnmodule_hook_guards`, `nn.functional.mse_loss`, `torch.optim.SGD`), read
    without the index's code; each must be an entry that lists the example's file."""
    sections = index_sections(built_site)
    checked = 0
    for snippet in shown_examples():
        path = ROOT / snippet
        source = path.read_text(encoding="utf-8")
        nn_alias = bool(re.search(r"^(import torch\.nn as nn|from torch import nn)$", source, re.M))
        for name in torch_names(code_tokens(path), nn_alias):
            assert name in sections, f"{snippet} uses {name}, which the API index does not list"
            assert path.name in sections[name], f"the API index lists {name} without {snippet}"
            checked += 1
    assert checked > 100


def test_an_attribute_only_one_class_has_is_listed_under_it(built_site):
    """Sentence: 'attributes such as .retain_grad() or .is_leaf, attributed to the one torch class that has
    them (Tensor, nn.Module, autograd's Node, a hook's RemovableHandle)'. Counter-case: every example whose
    code writes `.retain_grad`, `.is_leaf`, `.grad_fn`, ... after a dot, found by this probe's own matching;
    and the oracle's premise, that exactly one of the four classes has each."""
    from torch.autograd.graph import Node
    from torch.utils.hooks import RemovableHandle

    for attribute in ONE_OWNER:
        owners = [c for c in (torch.Tensor, nn.Module, Node, RemovableHandle) if hasattr(c, attribute)]
        assert len(owners) == 1, (attribute, owners)
    sections = index_sections(built_site)
    checked = 0
    for snippet in shown_examples():
        path = ROOT / snippet
        code = re.sub(r"\s*\.\s*", ".", code_tokens(path))
        for attribute, entry in ONE_OWNER.items():
            if re.search(rf"\.{attribute}\b", code):
                assert path.name in sections[entry], f"{snippet} uses .{attribute}: not listed under {entry}"
                checked += 1
    assert checked > 30
