"""The MkDocs plugin that executes every example and refuses to show one that drifted.

When the files are collected (`on_files`), every snippet under snippets/ starts running, one process
each (`fieldnotes.runner`), or is taken from the cache (`fieldnotes.cache`), while MkDocs reads the
pages. A python block with `exec="on"` keeps markdown-exec's syntax and rendering (its validator and
`base_format`), but is not executed by markdown-exec: it is matched by its content to its snippet,
whose run is compared with the recorded output by `fieldnotes.examples.drift`, the function the tests
call. A block that drifted, raised unexpectedly or timed out shows an error admonition with the diff
instead of an output. Every problem (a drift, a false claim `text`{ data-out="x.py" }, inline code)
is logged as a warning, which fails the strict build. The plugin also lists each snippet and each
page's notebook as a download, and adds the ```autograd-graph fence (`fieldnotes.graph_fence`).
"""

from __future__ import annotations

import html
import json
import platform
import posixpath
import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import markdown_exec
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url
from pymdownx.snippets import SnippetPreprocessor

from fieldnotes import cache, graph_fence, lazy_imports, pages, runner, search_entries
from fieldnotes.code_spans import drop_plain_token_spans
from fieldnotes.config import FieldNotesConfig
from fieldnotes.examples import SNIPPETS_DIR, Example, drift, find_examples, torch_version
from fieldnotes.indentation import strip_indentation
from fieldnotes.page_notebook import page_notebook_json
from fieldnotes.pages import OWN_OPTIONS, snippets_of
from fieldnotes.torch_pin import require_pinned_torch

log = get_plugin_logger("fieldnotes")
lazy_imports.defer(*lazy_imports.HEAVY)  # before MkDocs loads mkdocs-jupyter (see lazy_imports.py)

# `text`{ data-out="leaves/x.py" } in a page: a claim that snippets/leaves/x.py's recorded output
# contains text.
_CLAIM = re.compile(r'<code data-out="(?P<snippet>[^"]+)">(?P<text>.*?)</code>', re.DOTALL)


_FILENAME = re.compile(rf'<span class="filename">({SNIPPETS_DIR}/[^<]+\.py)</span>')

# What renders an example's block, named in the key of its rendered HTML.
_CODE = cache.code_digest(__file__)


class FieldNotesPlugin(BasePlugin[FieldNotesConfig]):
    def on_config(self, config):
        require_pinned_torch()
        if not self.config.execute:
            log.info("execute: false, so no example is run: pages show the recorded outputs, unchecked.")
        # mkdocs-jupyter's cache key covers the notebook and its settings, not what is installed:
        # give each environment its own cache, so a torch upgrade re-executes the notebook. It also
        # evicts what a build did not use: executed and unexecuted builds keep separate folders.
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            folder = cache.environment_fingerprint()[:16] + ("" if jupyter.config["execute"] else "-unexecuted")
            jupyter.config["cache_dir"] = f"{jupyter.config['cache_dir']}/{folder}"
        self.root = Path(config.config_file_path).parent
        cache.reuse = self.config.cache  # what the build makes of unchanged input, too (cache.memo)
        # An example's block is rendered by the Markdown extensions as mkdocs.yml configures them.
        self.markdown_settings = Path(config.config_file_path).read_text(encoding="utf-8")
        config.extra["built_with"] = f"torch {torch_version()} and Python {platform.python_version()}"
        fences = config.mdx_configs.setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        fences[:] = [f for f in fences if f["name"] not in ("py", "python")]
        fences.append(
            {"name": "python", "class": "python", "validator": markdown_exec.validator, "format": self._format}
        )
        fences.append(
            graph_fence.make_fence(
                self.root,
                self.config.timeout,
                page=lambda: self.page_path,
                execute=self.config.execute,
                use_cache=self.config.cache,
            )
        )
        return config

    def on_files(self, files, *, config):
        jupyter = config.plugins.get("mkdocs-jupyter")
        if jupyter is not None:
            # Imported only here: mkdocs-jupyter costs a second of start-up to a build that has no notebook.
            from fieldnotes import notebook_prefetch

            notebook_prefetch.start(jupyter, files)
        examples = find_examples(self.root)
        self.by_code = {_code_key((self.root / e.snippet).read_text(encoding="utf-8")): e for e in examples}
        # Readers can download every snippet file, and each page's examples as one notebook.
        self.notebooks: dict[str, str] = {}
        sources: list[str] = []
        for example in examples:
            files.append(File.generated(config, example.snippet, abs_src_path=str(self.root / example.snippet)))
        for helper in sorted((self.root / SNIPPETS_DIR).rglob("_*.py")):  # what a snippet imports, downloadable too
            uri = helper.relative_to(self.root).as_posix()
            files.append(File.generated(config, uri, abs_src_path=str(helper)))
        for page in files.documentation_pages():
            markdown = page.content_string  # generated pages (the API index) have no source file
            sources.append(markdown)
            included = snippets_of(markdown)
            # A missing include is reported, file named, by pymdownx.snippets when the page renders.
            if included and all((self.root / s).is_file() for s in included):
                notebook_uri = f"notebooks/{page.src_uri.removesuffix('.md').replace('/', '-')}.ipynb"
                notebook = page_notebook_json(markdown, self.root, page.src_uri)
                files.append(File.generated(config, notebook_uri, content=notebook))
                self.notebooks[page.src_uri] = notebook_uri
        if self.config.execute:
            self._start(examples, pages.timeouts(sources, self.config.timeout))
        return files

    def _start(self, examples: list[Example], timeouts: dict[str, float]) -> None:
        """Start every example now, `runner.JOBS` at a time, so they run while MkDocs reads the pages."""
        pool = ThreadPoolExecutor(max_workers=runner.JOBS)
        self.runs: dict[str, Future] = {}
        for example in examples:
            cached = cache.load(example) if self.config.cache else None
            if cached is None:
                runner.start_server()  # idempotent; imports torch once, only if something must run
                timeout = timeouts.get(example.snippet, self.config.timeout)
                self.runs[example.snippet] = pool.submit(self._run, example, timeout)
            else:
                self.runs[example.snippet] = Future()
                self.runs[example.snippet].set_result(cached)
        pool.shutdown(wait=False)

    def _run(self, example: Example, timeout: float) -> runner.Run:
        run = runner.run_snippet(self.root, example.snippet, timeout)
        if self.config.cache and drift(example, run) is None:  # a failure is never reused: it runs again
            cache.store(example, run)
        return run

    def on_pre_build(self, *, config):
        search = config.plugins.get(search_entries.SEARCH_PLUGIN)
        if search is not None and search.config.enabled:
            search_entries.reuse_entries(search, self.root)

    def on_post_page(self, output, *, page, config):
        return strip_indentation(output)

    def on_serve(self, server, *, config, builder):
        # mkdocs serve watches docs/ only; an edited snippet or recorded output must rebuild too.
        server.watch(str(self.root / SNIPPETS_DIR))
        return server

    def on_page_markdown(self, markdown, *, page, config, files):
        self.page_path = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        self.page_source = page.file.content_string  # with its front matter: line numbers as in the editor
        notebook = self.notebooks.get(page.file.src_uri)
        if notebook:
            link = posixpath.relpath(notebook, posixpath.dirname(page.file.src_uri) or ".")
            markdown = re.sub(
                r"^(# .*)$",
                rf"\1\n\n[Download this page's examples as a notebook (.ipynb)]({link})"
                r"{ .download-notebook download }",
                markdown,
                count=1,
                flags=re.MULTILINE,
            )
        return markdown

    def on_page_content(self, html_text, *, page, config, files):
        for claim in _CLAIM.finditer(html_text):
            example = Example(self.root, f"{SNIPPETS_DIR}/{claim['snippet']}")
            text = html.unescape(claim["text"])
            recorded = example.recorded()
            if recorded is None or text not in recorded:
                log.warning(
                    f"{self.page_path}: the page claims {example.snippet} prints `{text}`, "
                    f"but its recorded output {example.recorded_path} does not contain it."
                )

        # Each executed block's title names its snippet file: make it the download link of that file.
        def link(match: re.Match) -> str:
            url = get_relative_url(match[1], page.url)
            return f'<span class="filename"><a href="{url}" download>{match[1]}</a></span>'

        return drop_plain_token_spans(_FILENAME.sub(link, html_text))

    def _format(self, source, language, css_class, options, md, **kwargs):
        # Settings of ours (timeout="...") are read in on_files; markdown-exec would copy them onto
        # the shown source's fence, which the highlighter then refuses to render.
        extra = {k: v for k, v in options.get("extra", {}).items() if k not in OWN_OPTIONS}
        options = {**options, "extra": extra}
        example = self.by_code.get(_code_key(source))
        if example is None:
            log.warning(
                f"{self.page_path}: an executed python block holds code that is not a snippet file. "
                f'Put it in {SNIPPETS_DIR}/NAME.py and write the block as --8<-- "NAME.py".'
            )
            return ""
        output, problem = self._output(example)
        if problem:
            # The warning fails a strict build; the page (written all the same, and served by `make serve`)
            # says what is wrong instead of showing an output nobody recorded.
            log.warning(f"{self.page_path}:{self._line_of(example.snippet)}: {problem}")
            return _problem_block(example, problem)
        return self._rendered(source, output, options, md)

    def _rendered(self, source: str, output: str, options: dict, md) -> str:
        """The block's HTML as markdown-exec renders it (a new Markdown converter per block: a quarter of a
        warm build), reused while the code, its output, the fence's options, mkdocs.yml and what is
        installed are unchanged. Not a block with ids (tabs, say): markdown-exec numbers those with a
        counter of the build, so a reused one could repeat the ids of a block rendered anew beside it."""
        # An option JSON cannot hold (none does today) is keyed by its repr: at worst a miss, never an error.
        key = json.dumps([source, output, options, self.markdown_settings], default=repr).encode()

        def render() -> dict:
            run = lambda *_, **__: output  # noqa: E731 - markdown-exec's `run` callback
            rendered = str(markdown_exec.base_format(language="python", run=run, code=source, md=md, **options))
            return {"html": rendered, "reusable": ' id="' not in rendered}

        found = cache.memo(self.root, f"rendered example {_CODE}", key, render)
        return found["html"] if found["reusable"] else render()["html"]

    def _output(self, example: Example) -> tuple[str, str | None]:
        """What the page shows for the example, or what is wrong with it."""
        if not self.config.execute:
            return example.recorded() or "", None
        try:
            run = self.runs[example.snippet].result()
        except runner.SnippetTimeout as timeout:
            return "", f"{timeout}. It printed before that:\n{timeout.partial_output}"
        return run.output, drift(example, run)

    def _line_of(self, snippet: str) -> int:
        for number, line in enumerate(self.page_source.splitlines(), start=1):
            if "--8<--" in line and f'"{Path(snippet).relative_to(SNIPPETS_DIR)}"' in line:
                return number
        return 0


def _problem_block(example: Example, problem: str) -> str:
    return (
        '<div class="admonition failure fieldnotes-drift">'
        f'<p class="admonition-title">{html.escape(example.snippet)} did not print its recorded output</p>'
        f"<pre><code>{html.escape(problem)}</code></pre></div>"
    )


def _code_key(code: str) -> str:
    # A whole-file include drops the file's section markers (`--8<-- [start:rule-1]`, which let a page
    # show one part of it), so the block's code is the file without them.
    lines = code.strip().splitlines()
    return "\n".join(line for line in lines if not SnippetPreprocessor.RE_SNIPPET_SECTION.match(line)).strip()
