"""The notebook page's HTML made the theme's: mkdocs-jupyter inlines all of JupyterLab's CSS plus
MathJax, Mermaid (from a CDN) and clipboard scripts into every notebook page. `slim_notebook_html` drops
all of them and rewrites the cells as the theme's own markup (code and text outputs as `.highlight`
blocks, like every other page; markdown as plain HTML; SVG figures inline), styled by
docs/stylesheets/site.css in light and dark mode."""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bs4 import Tag

# What mkdocs-jupyter's template outputs for each part of a notebook, in document order.
_PARTS = ".jp-RenderedMarkdown, .jp-InputArea-editor, .jp-OutputArea-output"
# A code cell tagged "fold" (`# %% tags=["fold"]`) is shown collapsed, input and output, under its
# first line; nbconvert marks the cell with this class. It still runs, and the downloads keep it.
FOLD_CLASS = "celltag_fold"
_TEXT_MIME_TYPES = ("text/plain", "application/vnd.jupyter.stdout", "application/vnd.jupyter.stderr")


def slim_notebook_html(html: str) -> tuple[str, list[str]]:
    """Rewrite mkdocs-jupyter's HTML as the theme's markup; return it and the problems found."""
    from bs4 import BeautifulSoup  # only when the page changed: a rebuild reuses the result (on_page_content)

    soup = BeautifulSoup(html, "html.parser")
    wrapper = soup.select_one(".jupyter-wrapper")
    if wrapper is None:
        return html, ["no .jupyter-wrapper in the notebook HTML: mkdocs-jupyter's template changed?"]
    out = BeautifulSoup("", "html.parser")
    problems: list[str] = []
    figures: list[str] = []  # inserted after serialising: html.parser would lower-case viewBox & co.
    folded_cell, fold = None, None
    for part in wrapper.select(_PARTS):
        classes = part.get("class", [])
        cell = part.find_parent("div", class_="jp-Cell")
        if cell is not None and FOLD_CLASS in cell.get("class", []):
            if cell is not folded_cell:  # the cell's first part: open its fold
                folded_cell, fold = cell, _fold(soup, cell)
                out.append(fold)
            target = fold
        else:
            target = out
        if "jp-RenderedMarkdown" in classes:
            for link in part.select("a.anchor-link"):
                link["class"] = ["headerlink"]
                link["title"] = "Permanent link"
            target.extend(list(part.contents))
        elif "jp-InputArea-editor" in classes:
            pre = part.select_one(".highlight-ipynb pre")
            if pre is None:
                problems.append("a code cell without highlighted source")
                continue
            # Its spans are slimmed with every page's code (fieldnotes.render.code_spans).
            target.append(_highlight_block(soup, pre.contents, "nb-input"))
        else:
            mime = part.get("data-mime-type", "")
            if mime in _TEXT_MIME_TYPES:
                pre = part.find("pre")
                # As the other pages show an example's output: language-text, no syntax colours.
                target.append(_highlight_block(soup, pre.contents if pre else [], "language-text nb-output"))
            elif mime == "image/svg+xml":
                img = part.find("img")
                number = len(figures) + 1
                svg, problem = inline_svg(_data_uri_text(img["src"]) if img else "", f"nb-fig{number}")
                if problem:
                    problems.append(f"figure {number}: {problem}")
                figures.append(svg)
                figure = soup.new_tag("div", attrs={"class": "nb-figure"})
                figure.string = _figure_slot(number)
                target.append(figure)
            elif mime == "text/html":
                box = soup.new_tag("div", attrs={"class": "nb-html"})
                box.extend(list(part.contents))
                target.append(box)
            else:
                part["class"] = ["nb-other"]
                target.append(part)
    html = str(out)
    for number, svg in enumerate(figures, start=1):
        html = html.replace(_figure_slot(number), svg, 1)
    return html, problems


def _fold(soup, cell: Tag) -> Tag:
    """<details class="nb-fold"><summary>the cell's first line, a comment</summary></details>"""
    pre = cell.select_one(".highlight-ipynb pre")
    first_line = pre.get_text().lstrip("\n").split("\n", 1)[0] if pre else ""
    details = soup.new_tag("details", attrs={"class": "nb-fold"})
    summary = soup.new_tag("summary")
    summary.string = first_line.lstrip("# ").strip() if first_line.startswith("#") else "Code"
    details.append(summary)
    return details


def _figure_slot(number: int) -> str:
    return f"@@nb-figure-{number}@@"


def _highlight_block(soup, contents, css_class: str) -> Tag:
    """<div class="CSS_CLASS highlight"><pre><span></span><code>CONTENTS</code></pre></div>"""
    from bs4 import NavigableString, Tag

    div = soup.new_tag("div", attrs={"class": f"{css_class} highlight"})
    pre = soup.new_tag("pre")
    code = soup.new_tag("code")
    contents = list(contents)
    # Pygments starts with an empty span; the theme's other code blocks put it before <code>.
    if contents and isinstance(contents[0], Tag) and contents[0].name == "span" and not contents[0].contents:
        contents = contents[1:]
    code.extend(contents)
    if code.contents and isinstance(code.contents[-1], NavigableString):
        code.contents[-1].replace_with(code.contents[-1].rstrip("\n") + "\n")
    pre.append(soup.new_tag("span"))
    pre.append(code)
    div.append(pre)
    return div


def _data_uri_text(uri: str) -> str:
    prefix = "data:image/svg+xml;base64,"
    return base64.b64decode(uri[len(prefix) :]).decode("utf-8") if uri.startswith(prefix) else ""


_ID = re.compile(r'\sid="([^"]+)"')
# Attributes holding coordinates, in points: matplotlib writes 6 decimals, 1 is plenty at any zoom.
_GEOMETRY = re.compile(r'(\s(?:d|x|y|width|height|viewBox|transform)=")([^"]*)"')
_LONG_DECIMAL = re.compile(r"(\d\.\d)\d+")
# In <text> styles: site.css sets the colour and font of figure text for both colour schemes.
_TEXT_STYLE = re.compile(r'(<text\b[^>]*\sstyle=")([^"]*)"')
_FONT_OR_FILL = re.compile(r"\s*(?:font-family|fill):[^;]*(?:;|$)")


def _short_numbers(geometry: str) -> str:
    """One decimal at most, none when it is 0, one space between numbers: "M 60.7 -181.8  L 0.0" is
    "M 60.7 -181.8 L 0"."""
    geometry = re.sub(r"(\d)\.0(?!\d)", r"\1", _LONG_DECIMAL.sub(r"\1", geometry))
    return re.sub(r"\s+", " ", geometry).strip()


def _drop_invisible_paths(svg: str) -> str:
    """Drop every path that draws nothing: no fill, and no stroke (none set, none inherited from a
    group: only those outside every <g>). matplotlib draws a transparent figure's and axes' background
    so."""
    out, depth, last = [], 0, 0
    for tag in re.finditer(r'<g\b[^>]*?(/?)>|</g>|<path d="[^"]*" style="fill:none"/>', svg):
        out.append(svg[last : tag.start()])
        last = tag.end()
        if tag[0].startswith("<path"):
            if depth:
                out.append(tag[0])
            continue
        out.append(tag[0])
        depth += -1 if tag[0] == "</g>" else 0 if tag[1] else 1
    out.append(svg[last:])
    return "".join(out)


def _drop_overridden_use_styles(svg: str) -> str:
    """From each <use>'s style, drop the properties its referenced element sets itself: the clone
    inherits the <use>'s properties, and its own style overrides what it inherits, so they are dead.
    matplotlib writes a tick's colour and width on the tick's path and again on every use of it."""
    own = {
        m[1]: {d.split(":")[0] for d in m[2].split(";")}
        for m in re.finditer(r'<\w+ id="([^"]+)"[^>]*?\sstyle="([^"]*)"', svg)
    }

    def slim(use: re.Match) -> str:
        kept = [d for d in use[3].split(";") if d.split(":")[0] not in own.get(use[2], ())]
        return use[1] + (f' style="{";".join(kept)}"' if kept else "")

    return re.sub(r'(<use\b[^>]*?href="#([^"]+)"[^>]*?)\sstyle="([^"]*)"', slim, svg)


def _unwrap_bare_groups(svg: str) -> str:
    """Drop every <g> without attributes (and its </g>): they group nothing that matters."""
    out, bare, last = [], [], 0
    for tag in re.finditer(r"<g(\s[^>]*)?>|</g>", svg):
        out.append(svg[last : tag.start()])
        last = tag.end()
        if tag.group(0) == "</g>":
            if not bare.pop():
                out.append("</g>")
        else:
            bare.append(tag.group(1) is None)
            if tag.group(1) is not None:
                out.append(tag.group(0))
    out.append(svg[last:])
    return "".join(out)


def inline_svg(svg: str, prefix: str) -> tuple[str, str | None]:
    """A matplotlib SVG made fit to inline in a page; and a problem, if any.

    Its ids get `prefix` (several figures share ids such as clip paths), its text alternative is
    the `Title` passed to savefig's metadata (as role="img" and aria-label), the metadata block and
    the XML prolog go, and its global `*{...}` stylesheet becomes a style on the root element.
    """
    start = svg.find("<svg")
    if start < 0:
        return "", "not an SVG image"
    svg = svg[start:]
    # matplotlib writes savefig's metadata Title as the SVG's first child <title> (its accessible
    # name), and in <metadata>, where the creator has a dc:title too ("Matplotlib v3...").
    title = re.match(r"<svg\b[^>]*>\s*<title>(.*?)</title>", svg, re.DOTALL)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    star = re.search(r'<style type="text/css">\s*\*\s*\{([^}]*)\}\s*</style>\s*', svg)
    root_style = ""
    if star:
        svg = svg[: star.start()] + svg[star.end() :]
        root_style = star.group(1).strip()
    for number, old in enumerate(sorted(set(_ID.findall(svg)))):
        if f"#{old})" in svg or f'href="#{old}"' in svg:  # referenced: give it a short, unique name
            new = f"{prefix}-{number}"
            svg = svg.replace(f' id="{old}"', f' id="{new}"').replace(f"#{old})", f"#{new})")
            svg = svg.replace(f'href="#{old}"', f'href="#{new}"')
        else:  # matplotlib names every group (figure_1, xtick_3, ...): unused, and page weight
            svg = svg.replace(f' id="{old}"', "")
    svg = _GEOMETRY.sub(lambda m: m.group(1) + _short_numbers(m.group(2)) + '"', svg)
    svg = re.sub(r'\stransform="rotate\(-?0 [^)]*\)"', "", svg)  # a rotation by 0 degrees
    svg = _TEXT_STYLE.sub(lambda m: m.group(1) + _FONT_OR_FILL.sub("", m.group(2)).strip("; ") + '"', svg)
    svg = re.sub(r">\s+<", "><", svg)  # matplotlib's indentation
    svg = re.sub(r'\sstyle="([^"]*)"', lambda m: ' style="' + re.sub(r"([:;])\s+", r"\1", m[1]) + '"', svg)
    svg = _unwrap_bare_groups(svg).replace("<g/>", "")
    svg = _drop_overridden_use_styles(_drop_invisible_paths(svg))
    attributes = ' role="img"'
    if title:
        label = title.group(1).strip().replace('"', "&quot;")  # already XML-escaped, but for quotes
        attributes += f' aria-label="{label}"'
    if root_style:
        attributes += f' style="{root_style}"'
    svg = svg.replace("<svg", "<svg" + attributes, 1)
    problem = None if title else "no text alternative: pass metadata={'Title': ...} to savefig"
    return svg, problem
