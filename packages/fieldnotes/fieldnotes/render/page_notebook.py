"""A lesson page as a Jupyter notebook: its prose as markdown cells, each executed block as a code cell
holding the snippet file itself (not a copy kept elsewhere), generated at build time.

The prose reads as the page does, in Markdown that Jupyter renders, without the build's markup: a
```autograd-graph fence becomes the diagram it draws (an SVG image), `--8<--` includes of a file's
section become the section's text, admonitions (`!!! note "Title"`) become quotes and collapsed ones
(`??? note`) <details>, attribute lists (`{ #id }`, `{ data-out=... }`) go, and a heading's id stays as
an anchor in it, so the page's own links still land. Links to other pages go to the site's pages
when the project has a `site_url`, else to the page's file name (`faq/warnings.md`)."""

from __future__ import annotations

import base64
import itertools
import posixpath
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin

from fieldnotes import cache
from fieldnotes.blocks import DIAGRAM_FENCE, Page, diagram_body
from fieldnotes.examples import Example, snippets_dir

if TYPE_CHECKING:
    import nbformat

    from fieldnotes.cache import Store

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
RAISES_TAG = "raises-exception"  # nbclient and JupyterLab keep going past a cell with this tag

# Fenced blocks and inline code: the rewriting below leaves what they hold as it is.
_FENCED = re.compile(r"^(?P<fence>```+|~~~+)[^\n]*\n.*?^(?P=fence)[ \t]*$", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_MASKINGS = itertools.count()
_ATTR = r"(?:[#.][\w:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s}]+))"
_ATTR_LIST = re.compile(rf"[ \t]*\{{:?[ \t]*{_ATTR}(?:[ \t]+{_ATTR})*[ \t]*\}}")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)[ \t]*$", re.MULTILINE)
_HEADING_ID = re.compile(r"\{:?[^}]*?#(?P<id>[\w:-]+)[^}]*\}")
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+)\)")
_INCLUDE = re.compile(r'^(?P<indent>[ \t]*)--8<-- "(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"[ \t]*$', re.MULTILINE)
_ADMONITION = re.compile(
    r'^(?P<kind>!!!|\?\?\?\+?)[ \t]+(?P<type>[\w-]+)(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*\n'
    r"(?P<body>(?:(?:[ \t]{4}.*)?\n)*)",
    re.MULTILINE,
)


_CODE_DIGEST = cache.code_digest(__file__)


class Diagrams(Protocol):
    """How a notebook shows a page's diagram fences (the torch features give one: `Build.diagrams`)."""

    def key(self, body: str) -> str:
        """The fence's drawing, as part of the notebook's key."""

    def labels(self, body: str) -> tuple[str, str] | None:
        """The diagram's title and caption (empty if none); None if the fence cannot be parsed."""

    def svg(self, body: str) -> str | None:
        """The drawing, or None if none can be made (its caption is shown)."""


def page_notebook_json(
    store: Store,
    page: Page,
    page_url: str,
    *,
    site_url: str = "",
    diagrams: Diagrams | None = None,
    docs_dir: Path | None = None,
    printed_by: str = "",
) -> str:
    """page_notebook() as .ipynb JSON. Reused while the page, its snippets, their recorded outputs, the
    helpers they import, the files it includes, its diagrams' drawing keys and this module are
    unchanged: making and validating it (nbformat) cost every rebuild a tenth of a second."""
    root = store.root
    parts = [page_url, page.markdown, site_url, printed_by]
    for snippet in page.snippets:
        parts += [(root / snippet).read_text(encoding="utf-8"), Example(root, snippet).recorded() or ""]
        parts += [(root / helper).read_text(encoding="utf-8") for helper in Example(root, snippet).helpers]
    for include in _INCLUDE.finditer(page.markdown):
        parts.append(_read(root / snippets_dir(root) / include["path"]))
    for body in page.diagrams:
        parts.append(diagrams.key(body) if diagrams else "no diagrams")

    def write() -> dict:
        import nbformat

        notebook = page_notebook(
            page, root, page_url, site_url=site_url, diagrams=diagrams, docs_dir=docs_dir, printed_by=printed_by
        )
        return {"ipynb": nbformat.writes(notebook)}

    return store.memo(f"page notebook {_CODE_DIGEST}", "\0".join(parts).encode(), write)["ipynb"]


def page_notebook(
    page: Page,
    root: Path,
    page_url: str,
    *,
    site_url: str = "",
    diagrams: Diagrams | None = None,
    docs_dir: Path | None = None,
    printed_by: str = "",
) -> nbformat.NotebookNode:
    """The notebook. Links to other pages go to `site_url`'s pages, or to their file names without one;
    diagrams are drawn by `diagrams`, or shown as their caption without it. `docs_dir` is the site's docs
    folder (MkDocs' `docs_dir`; `root/docs` if not given), where a linked `.py` or `.ipynb` may be a page.
    `printed_by` ("torch 2.13.0"), if given, is named in the first cell as what printed the page's outputs."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    prose = _Prose(root, page_url, site_url, diagrams, docs_dir or root / "docs")
    markdown = page.markdown
    front_matter = _FRONT_MATTER.match(markdown)
    cells = [
        new_markdown_cell(
            f"*The examples of {prose.page_link(page_url)}, in page order. Each code cell is one file of the "
            f"site's `{snippets_dir(root)}/` folder; the outputs on the page were printed by running exactly these"
            + (f", under {printed_by}. Another release may print differently.*" if printed_by else ".*")
        )
    ]
    position = front_matter.end() if front_matter else 0
    for block in page.blocks:
        prose.add(cells, markdown[position : block.start])
        example = Example(root, block.snippet)
        raises = "Traceback (most recent call last):" in (example.recorded() or "")
        for helper in example.helpers:  # so the notebook runs on its own
            code = (root / helper).read_text(encoding="utf-8").rstrip("\n")
            cells.append(new_code_cell(f"%%writefile {Path(helper).name}\n{code}"))
        cells.append(
            new_code_cell(
                (root / example.snippet).read_text(encoding="utf-8").rstrip("\n"),
                metadata={"tags": [RAISES_TAG]} if raises else {},
            )
        )
        position = block.end
    prose.add(cells, markdown[position:])
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"  # nbformat's default is random: the same page must give the same file
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


class _Prose:
    """The page's prose as markdown cells, in Markdown that Jupyter renders."""

    def __init__(self, root: Path, page_url: str, site_url: str, diagrams: Diagrams | None, docs_dir: Path) -> None:
        self.root, self.page_url, self.site_url, self.diagrams = root, page_url, site_url, diagrams
        self.docs_dir = docs_dir
        self.ids: set[str] = set()  # heading ids given so far, as MkDocs makes them unique

    def add(self, cells: list, text: str) -> None:
        from nbformat.v4 import new_markdown_cell

        text = _masking(_FENCED, text, self._includes)
        text = _masking(_FENCED, text, lambda rest, _: _masking(_INLINE_CODE, rest, self._rewrite))
        text = DIAGRAM_FENCE.sub(lambda fence: self._diagram(diagram_body(fence)), text)
        text = _ADMONITION.sub(_admonition, text).strip()
        if text:
            cells.append(new_markdown_cell(text))

    def _includes(self, text: str, _unmask) -> str:
        """`--8<-- "file:section"` lines as the section's text (as pymdownx.snippets shows it)."""

        def include(match: re.Match) -> str:
            lines = _read(self.root / snippets_dir(self.root) / match["path"]).splitlines()
            if match["section"]:
                start, end = f"--8<-- [start:{match['section']}]", f"--8<-- [end:{match['section']}]"
                inside = [i for i, line in enumerate(lines) if line.strip() in (start, end)]
                lines = lines[inside[0] + 1 : inside[1]] if len(inside) == 2 else []
            return textwrap.indent(textwrap.dedent("\n".join(lines)), match["indent"])

        return _INCLUDE.sub(include, text)

    def _rewrite(self, text: str, unmask) -> str:
        text = _HEADING.sub(lambda heading: self._heading(heading, unmask), text)
        text = _ATTR_LIST.sub("", text)
        return _LINK.sub(lambda link: f"[{link['text']}]({self._target(link['target'])})", text)

    def _heading(self, match: re.Match, unmask) -> str:
        """The heading without its attribute list, ending in an anchor with the id MkDocs gives it."""
        from markdown.extensions.toc import slugify, unique

        text = match["text"]
        explicit = _HEADING_ID.search(text)
        text = _ATTR_LIST.sub("", text)
        if explicit:
            heading_id = explicit["id"]
        else:  # as the toc extension makes it, from the heading's text without its markup
            shown = re.sub(r"`+([^`]*)`+", r"\1", _LINK.sub(r"\g<text>", unmask(text)))
            heading_id = slugify(shown, "-")
        heading_id = unique(heading_id, self.ids)
        return f'{match["hashes"]} {text} <a id="{heading_id}"></a>'

    def page_link(self, docs_path: str) -> str:
        target = self._target(posixpath.basename(docs_path))
        return f"[{docs_path}]({target})" if target != posixpath.basename(docs_path) else docs_path

    def _target(self, target: str) -> str:
        if re.match(r"[a-z][\w+.-]*:|#", target):  # another site, mail, or this page
            return target
        path, _, fragment = target.partition("#")
        docs_path = posixpath.normpath(
            path.lstrip("/") if path.startswith("/") else posixpath.join(posixpath.dirname(self.page_url), path)
        )
        if not self.site_url:
            return docs_path + (f"#{fragment}" if fragment else "")
        # A page's directory URL, as MkDocs writes it; in the docs folder, a .py or .ipynb is a notebook page.
        page_suffix = posixpath.splitext(docs_path)[1]
        if page_suffix == ".md" or page_suffix in (".py", ".ipynb") and (self.docs_dir / docs_path).is_file():
            docs_path = docs_path.removesuffix(page_suffix)
            docs_path = "" if docs_path == "index" else docs_path.removesuffix("/index")
            docs_path += "/" if docs_path else ""
        return urljoin(self.site_url.rstrip("/") + "/", docs_path) + (f"#{fragment}" if fragment else "")

    def _diagram(self, body: str) -> str:
        """The fence as the diagram it draws: an SVG image, in black on white (a notebook's own
        colours may be dark), with its caption."""
        labels = self.diagrams.labels(body) if self.diagrams is not None else None
        if labels is None:  # no feature draws diagrams, or the page's own fence reports what is wrong
            return ""
        title, caption = labels
        caption = f"*{caption}*" if caption else ""
        svg = self.diagrams.svg(body)
        if svg is None:
            return caption
        # As an image it is a document of its own: a size of its own too, not the page's width.
        width, height = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups()
        svg = svg.replace('width="100%"', f'width="{width}" height="{height}"', 1)
        svg = svg.replace('style="', 'style="background: #fff; color: #000; ', 1)
        data = base64.b64encode(svg.encode()).decode("ascii")
        alt = title.replace('"', "&quot;")
        return f'<img src="data:image/svg+xml;base64,{data}" alt="{alt}">' + (f"\n\n{caption}" if caption else "")


def _masking(pattern: re.Pattern, text: str, rewrite) -> str:
    """`rewrite(text, unmask)` applied to the text with each match of `pattern` (code) replaced by a
    placeholder, then the matches put back; `unmask` puts them back in a part of the text. Each call
    has placeholders of its own, so maskings nest."""
    kept: list[str] = []
    mark = f"\x00{next(_MASKINGS)}:"
    placeholder = re.compile(re.escape(mark) + r"(\d+)\x00")

    def keep(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"{mark}{len(kept) - 1}\x00"

    def unmask(masked: str) -> str:
        return placeholder.sub(lambda found: kept[int(found[1])], masked)

    return unmask(rewrite(pattern.sub(keep, text), unmask))


def _admonition(match: re.Match) -> str:
    """`!!! note "Title"` as a quote with its title in bold; `??? note` (collapsed) as <details>."""
    title = match["title"] if match["title"] is not None else match["type"].capitalize()
    body = textwrap.dedent(match["body"]).strip("\n")
    if match["kind"].startswith("???"):
        state = " open" if match["kind"].endswith("+") else ""
        return f"<details{state}><summary>{title}</summary>\n\n{body}\n\n</details>\n"
    quoted = "\n".join(f"> {line}".rstrip() for line in [f"**{title}**", "", *body.splitlines()])
    return quoted + "\n"
