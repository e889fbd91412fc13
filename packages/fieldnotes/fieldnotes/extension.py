"""fieldnotes as a Python-Markdown extension: the ```python blocks markdown-exec would execute are run,
compared with their recorded outputs, and shown (or their drift's diff), and the page's claims are
checked, inside Markdown, so any host that runs Python-Markdown with pymdownx.superfences does it: MkDocs
(the plugin adds the extension, with its build), ProperDocs, Zensical (`markdown_extensions:
[..., fieldnotes.extension]`, after pymdownx.superfences), or `markdown.markdown(...)` itself.

A block is recognised by superfences, as markdown-exec's are, at any indentation (an admonition, a
content tab, a list). What it is, `blocks.describe` decides from the fence's options and the source
superfences hands over, with the includes pymdownx.snippets expanded on this page (recorded as it expands
them: `_Includes`). Its run is the one the build started ahead of time, else the store's, else one
started now (`fieldnotes.runs.Runs`).

A problem (a drift, a false claim, a block of code with no recorded output) is reported as the build asks: the
MkDocs plugin's build logs it as a warning, which fails the strict build, and the page shows the diff;
any other host gets a `Problem`, which superfences lets through (it swallows other exceptions) and which
stops `zensical build` with exit code 1.
"""

from __future__ import annotations

import functools
import html
import json
import logging
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

import markdown_exec
from markdown import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from pymdownx.superfences import SuperFencesException, _formatter, _reset, _validator, default_reset

from fieldnotes import blocks, cache, code_blocks
from fieldnotes.blocks import OWN_OPTIONS, Block, Include
from fieldnotes.build_state import Build
from fieldnotes.claims import false_claims
from fieldnotes.examples import Example

log = logging.getLogger("mkdocs.plugins.fieldnotes")  # MkDocs counts its warnings: a strict build fails

# What renders an example's block, named in the key of its rendered HTML.
_CODE = cache.code_digest(__file__)


class Problem(SuperFencesException):
    """An example that drifted, a false claim, an executed block that is not a snippet: raised where no
    build collects them as warnings. A SuperFencesException, the one superfences does not swallow."""


@dataclass
class PageInfo:
    path: str = "<markdown>"
    """As messages name it: docs/leaf-vs-intermediate.md."""
    url: str = ""
    """The page's URL, relative to the site: leaf-vs-intermediate/."""
    source: str = ""
    """The page's source, front matter included (empty when the host does not say)."""


@dataclass
class _PageState:
    """What one conversion of a page knows: its includes, as expanded, the ids its titles got, and the
    names and fence lines its blocks of code got (`fieldnotes.code_blocks`)."""

    page: PageInfo | None = None
    includes: list[Include] = field(default_factory=list)
    ids: list[tuple[str, int]] = field(default_factory=list)
    names: dict[str, int] = field(default_factory=dict)
    fence_lines: set[int] = field(default_factory=set)


def anchor(snippet: str) -> str:
    """The id of the block that shows snippets/X/Y.py on its page: ex-X-Y."""
    return "ex-" + snippet.split("/", 1)[-1].removesuffix(".py").replace("/", "-")


def relative_url(url: str, other: str) -> str:
    """`url` relative to the page at `other`, both relative to the site (as MkDocs' get_relative_url)."""
    if other != ".":
        head, tail = posixpath.split(other)
        other = head if "." in tail else other
    relative = posixpath.relpath("/" + url, "/" + other)
    return relative + "/" if url.endswith("/") else relative


class FieldNotesExtension(Extension):
    def __init__(self, **kwargs) -> None:
        self.config = {
            "build": ["", "The build (fieldnotes.build_state.Build) the MkDocs plugin hands over; by default "
                      "one of the project in `root`, reporting problems as exceptions."],
            "root": [".", "The project's folder (where mkdocs.yml is), when no build is given."],
        }
        super().__init__(**kwargs)
        self.state = _PageState()

    @property
    def build(self) -> Build:
        given = self.getConfig("build")
        return given if given else Build.standalone(Path(self.getConfig("root")).resolve())

    def extendMarkdown(self, md) -> None:
        md.registerExtension(self)
        superfences = next((e for e in md.registeredExtensions if type(e).__name__ == "SuperFencesCodeExtension"), None)
        if superfences is None:
            raise ValueError("fieldnotes.extension needs pymdownx.superfences, listed before it")
        for language in ("python", "py", "pycon"):
            superfences.extend_super_fences(
                language,
                functools.partial(_formatter, class_name=language, _fmt=self._format),
                functools.partial(_validator, validator=markdown_exec.validator),
                functools.partial(_reset, _reset=default_reset),
            )
        md.preprocessors.register(_Includes(md, self), "fieldnotes_includes", 33)  # before pymdownx.snippets
        md.postprocessors.register(_Claims(md, self), "fieldnotes_claims", 5)

    def reset(self) -> None:
        self.state = _PageState()

    def page(self, md) -> PageInfo:
        if self.state.page is None:
            self.state.page = _page_of(md, self.build)
        return self.state.page

    def report(self, where: str, problem: str) -> None:
        if self.build.warn:
            log.warning(f"fieldnotes: {where}: {problem}")
        else:
            raise Problem(f"{where}: {problem}")

    def _format(self, source, language, css_class, options, md, **kwargs) -> str:
        build, page = self.build, self.page(md)
        extra = options.get("extra", {})
        block = blocks.describe(source, extra, self.state.includes)
        if block is None or options.get("session") or build.recording:
            return code_blocks.format_block(self, block, source, language, options, md, page, self.state)
        # Settings of ours (timeout="...") are read from the fence; markdown-exec would copy them onto
        # the shown source's fence, which the highlighter then refuses to render.
        extra = {k: v for k, v in extra.items() if k not in OWN_OPTIONS}
        if "title" not in extra:
            extra["title"] = block.snippet
        options = {**options, "extra": extra}
        example = Example(build.root, block.snippet)
        limit = block.timeout if block.timeout is not None else build.config.timeout
        if build.config.execute:
            output, problem = build.runs.outcome(example, limit)
        else:
            output, problem = example.recorded() or "", None
        if problem:
            self.report(f"{page.path}:{block.line}", problem)
            # The page (written all the same, and served by `make serve`) says what is wrong instead of
            # showing an output nobody recorded; the code stays above the diff, titled as any block is.
            problem_html = _problem_block(example, problem)
            run = lambda *_, **__: problem_html  # noqa: E731 - markdown-exec's `run` callback
            shown = {**options, "html": True}
            rendered = str(markdown_exec.base_format(language="python", run=run, code=source, md=md, **shown))
            return self._titled(rendered, block, page)
        notes = "".join(note(block.snippet, page) for note in build.block_notes)
        return self._titled(self._rendered(source, output, options, md), block, page) + notes

    def _titled(self, rendered: str, block: Block, page: PageInfo) -> str:
        """The block's title made its snippet's download link (and given its id)."""
        snippet, shown = block.snippet, html.escape(block.title)
        title = f'<span class="filename">{shown}</span>'
        url = relative_url(snippet, page.url)
        attributes = ""
        if self.build.block_ids:
            name = anchor(snippet)
            times = 1 + sum(1 for taken, _ in self.state.ids if taken == name)
            self.state.ids.append((name, times))
            self.build.page_ids[page.path] = self.state.ids
            if times > 1:  # the same snippet twice on a page
                name = f"{name}-{times}"
            attributes = f' id="{name}"'
        link = f'<span class="filename"{attributes}><a href="{url}" download>{shown}</a></span>'
        return rendered.replace(title, link, 1)

    def _rendered(self, source: str, output: str, options: dict, md) -> str:
        """The block's HTML as markdown-exec renders it (a new Markdown converter per block: much of a
        warm build), reused while the code, its output, the fence's options, mkdocs.yml and what is
        installed are unchanged. Not a block with ids (tabs, say): markdown-exec numbers those with a
        counter of the build, so a reused one could repeat the ids of a block rendered anew beside it."""
        # An option JSON cannot hold (none does today) is keyed by its repr: at worst a miss, never an error.
        key = json.dumps([source, output, options, self.build.markdown_settings], default=repr).encode()

        def render() -> dict:
            run = lambda *_, **__: output  # noqa: E731 - markdown-exec's `run` callback
            rendered = str(markdown_exec.base_format(language="python", run=run, code=source, md=md, **options))
            return {"html": rendered, "reusable": ' id="' not in rendered}

        found = self.build.store.memo(f"rendered example {_CODE}", key, render)
        return found["html"] if found["reusable"] else render()["html"]


class _Includes(Preprocessor):
    """Records each include pymdownx.snippets expands on the page (its file, section, text and line in the
    page's source), by watching its preprocessor; adds nothing to the page."""

    def __init__(self, md, extension: FieldNotesExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, lines: list[str]) -> list[str]:
        page = self.extension.page(self.md)
        if not page.source:  # no host to say: lines are counted in the Markdown converted
            page.source = "\n".join(lines)
        if "snippet" in self.md.preprocessors:
            self._watch(self.md.preprocessors["snippet"])
        return lines

    def _watch(self, snippets) -> None:
        if getattr(snippets, "_fieldnotes_watched", False):
            return
        snippets._fieldnotes_watched = True
        extension, root = self.extension, self.extension.build.root
        parse, process = snippets.parse_snippets, snippets.process_snippet_lines
        depth, targets = [0], []

        def process_snippet_lines(lines, target):
            targets.append(dict(target))
            return process(lines, target)

        def parse_snippets(lines, file_name=None, is_url=False, is_section=False):
            depth[0] += 1
            try:
                expanded = parse(lines, file_name, is_url, is_section)
            finally:
                depth[0] -= 1
            if depth[0] == 1 and file_name and targets and not is_url:  # an include of the page itself
                target = targets[-1]
                file = Path(file_name).resolve()
                written = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
                state = extension.state
                line = _include_line(extension.page(self.md).source, target["path"], state.includes)
                state.includes.append(Include(written, target["section"], "\n".join(expanded), line))
            return expanded

        snippets.parse_snippets, snippets.process_snippet_lines = parse_snippets, process_snippet_lines


def _include_line(source: str, path: str, earlier: list[Include]) -> int:
    """The line of the page's source (1 for the first) of its next include naming `path`, after the line
    of the include before it; 0 if the source is unknown or names it nowhere there."""
    after = max((include.line for include in earlier), default=0)
    for number, line in enumerate(source.splitlines()[after:], start=after + 1):
        if "--8<--" in line and path in line:
            return number
    return 0


class _Claims(Postprocessor):
    """Checks the page's claims (`text`{ data-out="x.py" }) against the recorded outputs."""

    def __init__(self, md, extension: FieldNotesExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def run(self, text: str) -> str:
        if 'data-out="' in text:
            page = self.extension.page(self.md)
            for problem in false_claims(text, self.extension.build.root, page.path, page.source):
                where, _, what = problem.partition(": ")
                self.extension.report(where, what)
        return text


def _page_of(md, build: Build) -> PageInfo:
    """The page being converted, as the host says: MkDocs' page (its link-rewriting treeprocessor holds
    its file), Zensical's (its context preprocessor), or none (plain `markdown.markdown`)."""
    relpath = md.treeprocessors["relpath"] if "relpath" in md.treeprocessors else None
    file = getattr(relpath, "file", None)
    if file is not None:
        docs = Path(relpath.config.docs_dir).name
        return PageInfo(f"{docs}/{file.src_uri}", file.url, file.content_string)
    context = next((p for p in md.preprocessors if type(p).__name__ == "ContextPreprocessor"), None)
    if context is not None:
        source = build.root / build.docs_dir / context.page.path
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        return PageInfo(f"{build.docs_dir}/{context.page.path}", context.page.url, text)
    return PageInfo()


def _problem_block(example: Example, problem: str) -> str:
    return (
        '<div class="admonition failure fieldnotes-drift">'
        f'<p class="admonition-title">{html.escape(example.snippet)} did not print its recorded output</p>'
        f"<pre><code>{html.escape(problem)}</code></pre></div>"
    )


def makeExtension(**kwargs) -> FieldNotesExtension:  # noqa: N802 - Python-Markdown's name
    return FieldNotesExtension(**kwargs)
