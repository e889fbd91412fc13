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


MANY = 15
"""The page's own number: 'A name that more than 15 examples use lists only its pages'."""


def page_href(page: str) -> str:
    """The link from /api/ to a page's folder: grad-is-none.md -> ../grad-is-none/, faq/index.md -> ../faq/."""
    folder = page.removesuffix(".md").removesuffix("index").strip("/")
    return f"../{folder}/" if folder else "../"


def lists(sections: dict[str, str], bodies: dict[str, str], name: str, snippet: str, pages: set[str]) -> bool:
    """Whether the entry lists the example: its file by name, or, for a name used by more than MANY
    examples (counted from the page's own numbers), every page that shows it, with a count."""
    if Path(snippet).name in sections[name]:
        return True
    counts = [int(n) for n in re.findall(r"\((\d+)\)", sections[name])]
    return sum(counts) > MANY and all(f'href="{page_href(p)}#' in bodies[name] for p in pages)


def index_bodies(site: Path) -> dict[str, str]:
    """Entry name -> the HTML of its section of the built page."""
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    pieces = re.split(r"(<h3[^>]*>.*?</h3>)", page, flags=re.S)
    return {
        html.unescape(re.sub(r"<[^>]+>", "", heading)).replace("¶", "").strip(): body.split("<h2", 1)[0]
        for heading, body in zip(pieces[1::2], pieces[2::2], strict=True)
    }


def index_sections(site: Path) -> dict[str, str]:
    """Entry name -> the text of its section of the built page."""
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert " ".join(INTRO.split()) in " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    return {name: html.unescape(re.sub(r"<[^>]+>", " ", body)) for name, body in index_bodies(site).items()}


def test_every_torch_name_of_an_example_is_listed_with_it(built_site):
    """Sentence: 'Every torch name the examples on this site use, each a link to its page in PyTorch's
    documentation, and, under each, the examples that use it'. Counter-cases: every name written
    `torch.X` or `nn.X` in the code of every example a page shows (attribute chains such as
    `torch._dynamo.config.skip_nnmodule_hook_guards`, `nn.functional.mse_loss`, `torch.optim.SGD`), read
    without the index's code; each must be an entry that lists the example's file."""
    sections, bodies = index_sections(built_site), index_bodies(built_site)
    checked = 0
    for snippet, pages in shown_examples().items():
        path = ROOT / snippet
        source = path.read_text(encoding="utf-8")
        nn_alias = bool(re.search(r"^(import torch\.nn as nn|from torch import nn)$", source, re.M))
        for name in torch_names(code_tokens(path), nn_alias):
            assert name in sections, f"{snippet} uses {name}, which the API index does not list"
            assert lists(sections, bodies, name, snippet, pages), f"the API index lists {name} without {snippet}"
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
    sections, bodies = index_sections(built_site), index_bodies(built_site)
    checked = 0
    for snippet, pages in shown_examples().items():
        path = ROOT / snippet
        code = re.sub(r"\s*\.\s*", ".", code_tokens(path))
        for attribute, entry in ONE_OWNER.items():
            if re.search(rf"\.{attribute}\b", code):
                listed = lists(sections, bodies, entry, snippet, pages)
                assert listed, f"{snippet} uses .{attribute}: not listed under {entry}"
                checked += 1
    assert checked > 30


def test_a_name_many_examples_use_lists_its_pages_with_counts(built_site):
    """Sentence: 'A name that more than 15 examples use lists only its pages, each with how many examples
    on it use the name and a link to the first.' Counter-cases: every entry of the built page. One that
    lists files has at most 15 (a file per example on each page); one that lists counts has more than 15
    in all, and each count's link opens its page at an example (the weight it saves kept the page under
    its 100 KB budget once the FAQ grew)."""
    page = (built_site / "api" / "index.html").read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
    assert f"A name that more than {MANY} examples use lists only its pages" in text
    collapsed = 0
    for name, body in index_bodies(built_site).items():
        items = re.findall(r"<li>(.*?)</li>", body, flags=re.S)
        counts = [re.search(r"</a>\s*\((\d+)\)\s*$", item.strip()) for item in items]
        if all(counts) and items:
            collapsed += 1
            assert sum(int(c[1]) for c in counts) > MANY, name
            assert all(re.search(r'href="[^"]*#ex-[^"]+"', item) for item in items), name
        else:
            files = re.findall(r">[\w.]+\.py</a>", body)
            assert len(files) <= MANY, (name, len(files))
    assert collapsed >= 3
