"""The MkDocs plugin that executes every example and refuses to show one that drifted.

Python blocks with `exec="on"` keep markdown-exec's syntax and rendering (its validator and
`base_format`), but are run by `fieldnotes.runner` (one isolated process each) instead of in the
build process, and their output is compared with the recorded one by `fieldnotes.examples.drift`,
the same function the tests call. Any problem is logged as a warning, which fails the strict build.
"""

from __future__ import annotations

import html
import importlib.metadata
import os
import platform
import posixpath
import re
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import markdown_exec
import nbformat
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url
from packaging.requirements import Requirement
from packaging.version import Version

from fieldnotes import cache, graph_fence, runner
from fieldnotes.examples import DEFAULT_TIMEOUT, SNIPPETS_DIR, Example, drift, find_examples, torch_version
from fieldnotes.page_notebook import fence_timeouts, page_notebook, snippets_of

log = get_plugin_logger("fieldnotes")

# `text`{ data-out="leaves/x.py" } in a page: a claim that snippets/leaves/x.py's recorded output
# contains text.
_CLAIM = re.compile(r'<code data-out="(?P<snippet>[^"]+)">(?P<text>.*?)</code>', re.DOTALL)


FENCE_SETTINGS = ("timeout",)
_FILENAME = re.compile(rf'<span class="filename">({SNIPPETS_DIR}/[^<]+\.py)</span>')
# Where whitespace is content (<pre>, <code>, <textarea>) or code (<script>, <style>): kept as it is.
_VERBATIM = re.compile(r"<(pre|code|textarea|script|style)\b.*?</\1>", re.DOTALL)
_INDENTATION = re.compile(r"\n\s+")  # a line break, then indentation and blank lines


class FieldNotesConfig(Config):
    timeout = config_options.Type((int, float), default=DEFAULT_TIMEOUT)
    """Seconds an example may run before it is killed and the build fails."""
    execute = config_options.Type(bool, default=True)
    """False shows the recorded outputs without running anything (the benchmark's floor, a quick preview)."""
    cache = config_options.Type(bool, default=True)
    """Reuse an earlier run's output when the snippet and the environment are unchanged (see cache.py)."""


class FieldNotesPlugin(BasePlugin[FieldNotesConfig]):
    def on_config(self, config):
        _require_pinned_torch()
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
        timeouts: dict[str, float] = {}
        for example in examples:
            files.append(File.generated(config, example.snippet, abs_src_path=str(self.root / example.snippet)))
        for page in files.documentation_pages():
            markdown = page.content_string  # generated pages (the API index) have no source file
            timeouts.update(fence_timeouts(markdown))
            included = snippets_of(markdown)
            # A missing include is reported, file named, by pymdownx.snippets when the page renders.
            if included and all((self.root / s).is_file() for s in included):
                notebook_uri = f"notebooks/{page.src_uri.removesuffix('.md').replace('/', '-')}.ipynb"
                notebook = page_notebook(markdown, self.root, page.src_uri)
                files.append(File.generated(config, notebook_uri, content=nbformat.writes(notebook)))
                self.notebooks[page.src_uri] = notebook_uri
        if self.config.execute:
            self._start(examples, timeouts)
        return files

    def _start(self, examples: list[Example], timeouts: dict[str, float]) -> None:
        """Start every example now, one per core at a time, so they run while MkDocs reads the pages.
        (More at once only makes torch's threads fight over the cores: slower, measured on 2 cores.)"""
        pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
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

        return _FILENAME.sub(link, html_text)

    def _format(self, source, language, css_class, options, md, **kwargs):
        # Settings of ours (timeout="...") are read in on_files; markdown-exec would copy them onto
        # the shown source's fence, which the highlighter then refuses to render.
        extra = {k: v for k, v in options.get("extra", {}).items() if k not in FENCE_SETTINGS}
        options = {**options, "extra": extra}
        return markdown_exec.base_format(language="python", run=self._run_block, code=source, md=md, **options)

    def _run_block(self, code: str, **_options) -> str:
        example = self.by_code.get(_code_key(code))
        if example is None:
            log.warning(
                f"{self.page_path}: an executed python block holds code that is not a snippet file. "
                f'Put it in {SNIPPETS_DIR}/NAME.py and write the block as --8<-- "NAME.py".'
            )
            return ""
        if not self.config.execute:
            return example.recorded() or ""
        where = f"{self.page_path}:{self._line_of(example.snippet)}"
        try:
            run = self.runs[example.snippet].result()
        except runner.SnippetTimeout as timeout:
            log.warning(f"{where}: {timeout}. It printed before that:\n{timeout.partial_output}")
            return timeout.partial_output
        problem = drift(example, run)
        if problem:
            log.warning(f"{where}: {problem}")
        return run.output

    def _line_of(self, snippet: str) -> int:
        for number, line in enumerate(self.page_source.splitlines(), start=1):
            if "--8<--" in line and f'"{Path(snippet).relative_to(SNIPPETS_DIR)}"' in line:
                return number
        return 0


def _code_key(code: str) -> str:
    return code.strip()


def _require_pinned_torch() -> None:
    """Stop at once, with what to do, when torch is missing or older than the pinned one."""
    pinned = _pinned_torch()
    try:
        installed = Version(importlib.metadata.version("torch"))
    except importlib.metadata.PackageNotFoundError:
        raise PluginError(
            f"torch is not installed in this environment; the examples need torch {pinned}. "
            f"Run `make build` (it sets up .venv), or: pip install torch=={pinned}"
        ) from None
    if installed.release < pinned.release:
        raise PluginError(
            f"torch {installed} is installed but the examples are recorded with torch {pinned}. "
            f"Run `make build` (it sets up .venv), or: pip install torch=={pinned}"
        )


def _pinned_torch() -> Version:
    for requirement in importlib.metadata.requires("autograd-field-notes") or []:
        parsed = Requirement(requirement)
        if parsed.name == "torch":
            return Version(next(iter(parsed.specifier)).version)
    raise PluginError("pyproject.toml does not pin torch")


def strip_indentation(page_html: str) -> str:
    """The page without the templates' indentation and blank lines (about 5 KB a page): one line break
    stays wherever there was whitespace, so nothing renders differently."""
    parts, position = [], 0
    for verbatim in _VERBATIM.finditer(page_html):
        parts += [_INDENTATION.sub("\n", page_html[position : verbatim.start()]), verbatim.group(0)]
        position = verbatim.end()
    parts.append(_INDENTATION.sub("\n", page_html[position:]))
    return "".join(parts)
