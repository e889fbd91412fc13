"""The pages' executed blocks: each one's snippet run (or its stored run reused), checked against its
recorded output, and rendered as markdown-exec renders it; and the claims a page makes about outputs.

A python block with `exec="on"` keeps markdown-exec's syntax and rendering (its validator and
`base_format`), but markdown-exec does not execute it: the block is identified by the number
`blocks.tag` gave its fence, and shows its snippet's run under the block's own time limit (a snippet
two pages show with two limits runs under each), compared with the recorded output by
`fieldnotes.examples.drift`, the function the tests call. A block that drifted, raised unexpectedly or
timed out shows an error admonition with the diff instead of an output. Every problem (a drift, a
false claim `text`{ data-out="x.py" }, inline code) is logged as a warning, which fails the strict
build. Each block's title (its include's path, unless the fence gives one) is made the download link
of its snippet, with the id the API index links to.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from concurrent.futures import Future

import markdown_exec
from mkdocs.plugins import get_plugin_logger
from mkdocs.utils import get_relative_url

from fieldnotes import blocks, cache, runner
from fieldnotes.blocks import BLOCK_OPTION, OWN_OPTIONS, Block, Page
from fieldnotes.build_state import Build
from fieldnotes.examples import SNIPPETS_DIR, Example, drift
from fieldnotes.jobs import Scheduler

log = get_plugin_logger("fieldnotes")

# `text`{ data-out="leaves/x.py" } in a page: a claim that snippets/leaves/x.py's recorded output
# contains text.
_CLAIM = re.compile(r'<code data-out="(?P<snippet>[^"]+)">(?P<text>.*?)</code>', re.DOTALL)

# What renders an example's block, named in the key of its rendered HTML.
_CODE = cache.code_digest(__file__)


def anchor(snippet: str) -> str:
    """The id of the block that shows snippets/X/Y.py on its page: ex-X-Y."""
    return "ex-" + snippet.removeprefix(f"{SNIPPETS_DIR}/").removesuffix(".py").replace("/", "-")


class PageBlocks:
    """The executed blocks of one build."""

    def __init__(
        self, build: Build, scheduler: Scheduler, block_ids: bool, notes: Callable[[str, object], str] | None = None
    ) -> None:
        self.build = build
        self.scheduler = scheduler
        self.block_ids = block_ids
        """Whether each block's title gets the id the API index links to."""
        self.notes = notes
        """What follows a block's output, given its snippet and the page (what another torch prints)."""
        self.runs: dict[tuple[str, float], Future] = {}
        """Each run by what makes it differ: its snippet and its time limit."""
        self.problems: dict[tuple[str, float], str | None] = {}
        """Each run's drift (or None), computed once per run."""
        self.page_blocks: list[Block] = []
        self.page_ids: list[tuple[str, int]] = []
        """The ids given to the titles of the page being rendered: (anchor, which time on the page)."""

    def fence(self) -> dict:
        """The pymdownx.superfences custom fence that renders every ```python block."""
        return {"name": "python", "class": "python", "validator": markdown_exec.validator, "format": self._format}

    def _limit(self, block: Block) -> float:
        return block.timeout if block.timeout is not None else self.build.config.timeout

    def start(self, examples: list[Example]) -> None:
        """Start every run now (or take its stored one), so they run while MkDocs reads the pages: each
        page's blocks in page order, before the next page's (MkDocs renders each page as soon as its
        runs are done), then the examples no page shows."""
        known = {example.snippet: example for example in examples}
        store = self.build.store
        for run_key in run_order(self.build.pages.values(), examples, self.build.config.timeout):
            example = known[run_key[0]]
            stored = store.load_run(example)
            if stored is not None:
                self.runs[run_key] = Future()
                self.runs[run_key].set_result(stored)
                continue

            def keep(run: runner.Run, example: Example = example, run_key: tuple = run_key) -> None:
                self.problems[run_key] = self._drift(example, run)
                if self.problems[run_key] is None:  # a failure is never reused: it runs again
                    store.save_run(example, run)

            self.runs[run_key] = self.scheduler.submit(example.snippet, run_key[1], then=None, done=keep)

    def on_page_markdown(self, markdown: str, page) -> str:
        parsed = self.build.pages.get(page.file.src_uri)
        if parsed is None or not parsed.markdown.endswith(markdown):
            # A page made after on_files, or one another plugin rewrote first: its own blocks.
            parsed = blocks.parse(markdown)
        self.page_blocks = parsed.blocks
        self.page_ids = []
        self.page = page
        return blocks.tag(markdown, parsed)

    def on_page_content(self, html_text: str, page) -> str:
        for claim in _CLAIM.finditer(html_text):
            example = Example(self.build.root, f"{SNIPPETS_DIR}/{claim['snippet']}")
            text = html.unescape(claim["text"])
            recorded = example.recorded()
            if recorded is None or text not in recorded:
                log.warning(
                    f"{self.build.page_path}:{_claim_line(page, claim['snippet'], text)}: the page claims "
                    f"{example.snippet} prints `{text}`, but its recorded output {example.recorded_path} does not "
                    "contain it. Edit the sentence to what the example prints, or re-check the example."
                )
        if page.present_anchor_ids is not None:  # MkDocs checks links to anchors against these
            page.present_anchor_ids.update(name if times == 1 else f"{name}-{times}" for name, times in self.page_ids)
        return html_text

    def _format(self, source, language, css_class, options, md, **kwargs):
        extra = options.get("extra", {})
        number = extra.get(BLOCK_OPTION)
        # Settings of ours (timeout="...") are read from the page; markdown-exec would copy them onto
        # the shown source's fence, which the highlighter then refuses to render.
        options = {**options, "extra": {k: v for k, v in extra.items() if k not in OWN_OPTIONS}}
        if number is None:
            log.warning(
                f"{self.build.page_path}: an executed python block holds code that is not a snippet file. "
                f'Put it in {SNIPPETS_DIR}/NAME.py and write the block as --8<-- "NAME.py".'
            )
            return ""
        block = self.page_blocks[int(number)]
        example = Example(self.build.root, block.snippet)
        output, problem = self._output(example, self._limit(block))
        if problem:
            # The warning fails a strict build; the page (written all the same, and served by `make serve`)
            # says what is wrong instead of showing an output nobody recorded.
            log.warning(f"{self.build.page_path}:{block.line}: {problem}")
            # The code stays above the diff, titled (with the id the API index links to) as any block is.
            problem_html = _problem_block(example, problem)
            run = lambda *_, **__: problem_html  # noqa: E731 - markdown-exec's `run` callback
            shown = {**options, "html": True}
            rendered = str(markdown_exec.base_format(language="python", run=run, code=source, md=md, **shown))
            return self._titled(rendered, block)
        note = self.notes(block.snippet, self.page) if self.notes is not None else ""
        return self._titled(self._rendered(source, output, options, md), block) + note

    def _titled(self, rendered: str, block: Block) -> str:
        """The block's title made its snippet's download link (and given its id)."""
        snippet, shown = block.snippet, html.escape(block.title)
        title = f'<span class="filename">{shown}</span>'
        url = get_relative_url(snippet, self.page.url)
        attributes = ""
        if self.block_ids:
            name = anchor(snippet)
            times = 1 + sum(1 for taken, _ in self.page_ids if taken == name)
            self.page_ids.append((name, times))
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

    def _output(self, example: Example, limit: float) -> tuple[str, str | None]:
        """What the page shows for the example run under `limit`, or what is wrong with it."""
        if not self.build.config.execute:
            return example.recorded() or "", None
        run_key = (example.snippet, limit)
        try:
            run = self.runs[run_key].result()
        except runner.SnippetTimeout as timeout:
            return "", f"{timeout}. It printed before that:\n{timeout.partial_output}"
        if run_key not in self.problems:  # a stored run: checked once, here
            self.problems[run_key] = self._drift(example, run)
        return run.output, self.problems[run_key]

    def _drift(self, example: Example, run: runner.Run) -> str | None:
        return drift(example, run, self.build.printed_by, self.build.config.record_command)


def run_order(pages: Iterable[Page], examples: list[Example], default: float) -> list[tuple[str, float]]:
    """The runs a build asks for, each once, by what makes them differ (snippet, time limit): each page's
    blocks in page order, before the next page's, then the examples no page shows; only examples."""
    known = {example.snippet for example in examples}
    wanted = [(b.snippet, b.timeout if b.timeout is not None else default) for page in pages for b in page.blocks]
    shown = {snippet for snippet, _ in wanted}
    wanted += [(e.snippet, default) for e in examples if e.snippet not in shown]
    return list(dict.fromkeys(key for key in wanted if key[0] in known))


def _claim_line(page, snippet: str, text: str) -> int:
    """The claim's line in the page's source (front matter counted): the line naming its snippet and its
    text, else the first naming its snippet."""
    named = f'data-out="{snippet}"'
    lines = [(n, line) for n, line in enumerate(page.file.content_string.splitlines(), start=1) if named in line]
    return next((n for n, line in lines if f"`{text}`" in line), lines[0][0] if lines else 0)


def _problem_block(example: Example, problem: str) -> str:
    return (
        '<div class="admonition failure fieldnotes-drift">'
        f'<p class="admonition-title">{html.escape(example.snippet)} did not print its recorded output</p>'
        f"<pre><code>{html.escape(problem)}</code></pre></div>"
    )
