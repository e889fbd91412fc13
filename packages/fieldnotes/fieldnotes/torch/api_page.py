"""The API index page (the plugin's `api_index` feature): every torch name the examples use, each with
the examples that use it and its page in PyTorch's documentation. The index is read in the background
from the moment the files are known (`fieldnotes.torch.api_index`), and written into the page when MkDocs
renders it; each block's title gets the id the page links to (`fieldnotes.features.page_blocks`)."""

from __future__ import annotations

import posixpath
import threading

from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File

from fieldnotes.build_state import Build
from fieldnotes.extension import anchor
from fieldnotes.features import Feature
from fieldnotes.jobs import Scheduler
from fieldnotes.torch.api_index import Index, PageExample, page_examples, reused_index

log = get_plugin_logger("api_index")

DESCRIPTION = "Every torch name the examples use, with links to those examples and to PyTorch's documentation."
DOCS = "https://docs.pytorch.org/docs/stable/"


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


MANY_EXAMPLES = 15
"""A name used by more examples than this lists its pages, each with how many of its examples use it:
a link per example would make the page heavy and tell little (nearly every example calls `backward()`)."""


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


def index_markdown(index: Index, titles: dict[str, str] | None = None, page_uri: str = "api.md") -> str:
    """The page; `titles` are the pages' titles in the navigation (shorter than their headings)."""
    titles = titles or {}

    def link(example: PageExample, text: str | None = None) -> str:
        target = posixpath.relpath(example.page, posixpath.dirname(page_uri) or ".")
        return f"[{text or posixpath.basename(example.snippet)}]({target}#{anchor(example.snippet)})"

    lines = [
        "# API index",
        "",
        "Every torch name the examples on this site use, each a link to its page in PyTorch's",
        "documentation, and, under each, the examples that use it (the page, then the example's file",
        "name; a link opens the page at the example). A name that more than "
        f"{MANY_EXAMPLES} examples use lists only its pages, each with how many examples on it use the name",
        "and a link to the first. The list is read from the examples' code whenever the site is",
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
            # The heading links the documentation: a paragraph per entry for it made the page too heavy.
            if url:
                lines += [f"### [`{name}`]({url})", ""]
            else:
                lines += [f"### `{name}`", "", "No page of its own in PyTorch's documentation. Used in:", ""]
            by_page: dict[str, list[PageExample]] = {}
            for example in index.entries[name]:
                by_page.setdefault(example.page, []).append(example)
            many = len(index.entries[name]) > MANY_EXAMPLES
            for examples in by_page.values():
                title = titles.get(examples[0].page, examples[0].title)
                if many:
                    lines.append(f"- {link(examples[0], title)} ({len(examples)})")
                else:
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


class ApiIndexPage(Feature):
    """The page of one build: its index is read in a thread started in on_files."""

    order = 50

    def __init__(self, build: Build, scheduler: Scheduler) -> None:
        self.build = build
        self.scheduler = scheduler
        """What asks torch about the names the examples use."""
        self.uri = build.config.api_index.page
        self.titles: dict[str, str] = {}
        self._result: dict = {}
        self._thread: threading.Thread | None = None

    def on_files(self, files, config) -> None:
        pages = {uri: page for uri, page in self.build.pages.items() if uri.endswith(".md")}
        placeholder = "# API index\n"  # replaced in on_page_markdown, once the index is read
        files.append(File.generated(config, self.uri, content=placeholder))

        def work() -> None:
            try:
                self._result["index"] = reused_index(self.build.store, self.scheduler, page_examples(pages))
            except Exception as error:  # reported when the page is rendered, which fails the strict build
                self._result["error"] = error

        self._thread = threading.Thread(target=work, name="api-index", daemon=True)
        self._thread.start()

    def on_nav(self, nav, config=None, files=None) -> None:
        self.titles = {page.file.src_uri: page.title for page in nav.pages if page.title}

    def on_page_markdown(self, markdown, page, config=None, files=None):
        if page.file.src_uri != self.uri or self._thread is None:
            return markdown
        self._thread.join()
        if "error" in self._result:
            log.warning(f"the API index could not be read from the examples: {self._result['error']!r}")
            return markdown
        # Found by search, but after the pages that explain a name: a reader searching `is_leaf` wants the
        # lesson first, the index's entry (which links to it) next.
        page.meta.setdefault("search", {}).setdefault("boost", 0.001)
        page.meta.setdefault("description", DESCRIPTION)
        return index_markdown(self._result["index"], self.titles, self.uri)

    def on_page_content(self, html, page, config=None, files=None):
        if page.file.src_uri == self.uri:
            # The sidebar's table of contents lists the groups, not every entry again.
            for heading in page.toc:
                for group in heading.children:
                    group.children = []
        return html
