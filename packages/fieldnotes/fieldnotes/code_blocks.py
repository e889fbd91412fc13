"""Executed blocks that are not one snippet file, run and checked in the fence's formatter
(`fieldnotes.extension`) as markdown-exec would run them: code written in the fence, a named section
(`--8<-- "file.py:name"`), several includes, and every block of a `session=`.

Each runs through the build's `Sessions` (a session's blocks in one process, in build order; any other
block alone), and its output is compared with the one recorded beside its page (`page.md.out`,
`fieldnotes.page_outputs`), under its name there: its `id=`, else a digest of its code (of its includes'
paths and sections when it is made of includes only, so that an edit to the included code shows as a
diff). A drift is reported at the fence's line on the page, with the diff.

The blocks fieldnotes does not check (`fieldnotes.forms`) are left to markdown-exec and named once per
build (`note`); those of a session run in it all the same, so that the session keeps one namespace, and
show their output unchecked.

`record_pages` (`python -m fieldnotes record`) converts each page with the project's Markdown extensions
and writes what its blocks print into its `.out` file instead of comparing.
"""

from __future__ import annotations

import atexit
import html
import re
import sys
from pathlib import Path

import markdown_exec
from markdown_exec._internal.formatters.pycon import _transform_source

from fieldnotes import forms, page_outputs
from fieldnotes.blocks import Include
from fieldnotes.cache import Store
from fieldnotes.runner import Run, SnippetTimeout
from fieldnotes.sessions import Block, SessionEnded, Sessions

_FENCE_OPENER = re.compile(r"^[ \t>]*(?:`{3,}|~{3,})[ \t]*(?:python|py|pycon)\b(?P<options>[^\n]*)$")


class CodeBlocks:
    """One build's blocks of code."""

    def __init__(self, build) -> None:
        self.build = build
        self.recording = getattr(build, "recording", False)
        store = Store(build.root, reuse=False) if self.recording else build.store
        self.sessions = Sessions(build.root, store, start=build.scheduler.submit_call)
        self.unchecked = forms.Unchecked()
        self.recorded: dict[str, dict[str, str] | None] = {}
        """Each page's recorded outputs, read once."""
        self.sections: dict[str, list[page_outputs.Section]] = {}
        """What each page's blocks printed, in page order (`record`)."""
        self.failed: list[str] = []
        """What could not be recorded (`record`)."""

    def format(self, extension, source: str, language: str, options: dict, md, page, state) -> str:
        extra = options.get("extra", {})
        session = options.get("session") or None
        kind = forms.unchecked_because(language, options)
        includes = [i for i in state.includes if not i.taken and i.text.strip() and i.text.strip() in source]
        line = includes[0].line if includes else _fence_line(page.source, source, state)
        where = f"{page.path}:{line}"
        if kind is not None and session is None:
            self.unchecked.add(kind, where)
            return markdown_exec.formatter(source, language, "", options, md)
        name = page_outputs.block_name(options.get("id", ""), _identity(source, includes), state.names)
        for include in includes:
            include.taken = True
        limit = float(extra.get("timeout", self.build.config.timeout))
        code = _runs(language, source)
        block = Block(code, f"<{page.path} [{name}]>", limit, options.get("workdir"), options.get("width") or None)
        if kind is not None:
            self.unchecked.add(f"{kind} in a session, run in it", where)
        if not self.build.config.execute and kind is None:
            output, problem = (self._recorded(page.path) or {}).get(name, ""), None
        else:
            output, problem = self._outcome(page.path, session, block, name, checked=kind is None)
        if self.recording:
            return ""
        if problem:
            extension.report(where, problem)
            shown = {**options, "html": True, "extra": _shown(extra)}
            return self._render(language, source, _problem_html(page.path, name, problem), shown, md)
        return self._render(language, source, output, {**options, "extra": _shown(extra)}, md)

    def _outcome(self, page: str, session, block: Block, name: str, checked: bool) -> tuple[str, str | None]:
        def drift(run: Run) -> str | None:
            if not checked or self.recording:
                return None
            recorded = self._recorded(page)
            return page_outputs.drift(
                page, name, recorded, run, self.build.printed_by, self.build.config.record_command
            )

        try:
            run = self.sessions.submit(session, block, keep=lambda run: drift(run) is None).result()
        except (SnippetTimeout, SessionEnded) as stopped:
            partial = getattr(stopped, "partial_output", "")
            self.failed.append(page)
            print(f"not recorded: {page} [{name}]: {stopped}") if self.recording else None
            return "", f"{stopped}." + (f" It printed before that:\n{partial}" if partial else "")
        if self.recording and checked:
            self.sections.setdefault(page, []).append(page_outputs.Section(name, block.code, run.output))
        return run.output, drift(run)

    def _recorded(self, page: str) -> dict[str, str] | None:
        if page not in self.recorded:
            self.recorded[page] = page_outputs.read(self.build.root, page)
        return self.recorded[page]

    @staticmethod
    def _render(language: str, source: str, output: str, options: dict, md) -> str:
        """The block as markdown-exec renders it, with this output (hidden lines hidden, a pycon's prompts)."""
        run = lambda *_, **__: output  # noqa: E731 - markdown-exec's `run` callback
        transform = _transform_source if language == "pycon" else None
        shown = {k: v for k, v in options.items() if k != "transform_source"}
        return str(
            markdown_exec.base_format(
                language=language, run=run, code=source, md=md, transform_source=transform, **shown
            )
        )

    def note(self) -> str | None:
        return self.unchecked.note()

    def close(self) -> None:
        self.sessions.close()


def _runs(language: str, source: str) -> str:
    return forms.code_to_run(language, source)


def _shown(extra: dict) -> dict:
    """The fence's options markdown-exec copies onto the shown source (not fieldnotes' own)."""
    return {k: v for k, v in extra.items() if k != "timeout"}


def _identity(source: str, includes: list[Include]) -> str:
    """What names a block that has no id: its includes (path and section), when it is made of them alone;
    else its code."""
    rest = source
    for include in includes:
        rest = rest.replace(include.text.strip(), "", 1)
    if includes and not rest.strip():
        return "\n".join(f"--8<-- {i.file}:{i.section or ''}" for i in includes)
    return source


def _fence_line(page_source: str, source: str, state) -> int:
    """The line of the page (1 for the first) of the first executed fence not yet given whose first line of
    code is the block's; 0 if none is."""
    lines = page_source.splitlines()
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    for number, line in enumerate(lines, start=1):
        opener = _FENCE_OPENER.match(line)
        if opener and "exec" in opener["options"] and number not in state.fence_lines:
            body = next((b.strip().lstrip("> \t") for b in lines[number:] if b.strip()), "")
            if body == first:
                state.fence_lines.add(number)
                return number
    return 0


def _problem_html(page: str, name: str, problem: str) -> str:
    return (
        '<div class="admonition failure fieldnotes-drift">'
        f'<p class="admonition-title">{html.escape(page)} [{html.escape(name)}] did not print its recorded output</p>'
        f"<pre><code>{html.escape(problem)}</code></pre></div>"
    )


def record_pages(root: Path, only: list[str]) -> int:
    """Record what each page's blocks of code print in its `.out` file (the pages under `only`, else
    all); 1 if a block could not be recorded (it timed out, or its session had ended)."""
    import markdown
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.utils.meta import get_data

    from fieldnotes.build_state import Build
    from fieldnotes.config import project_config
    from fieldnotes.extension import FieldNotesExtension, PageInfo

    config = load_config(str(root / "mkdocs.yml"))
    build = Build.of(str(root / "mkdocs.yml"), project_config(root))
    build.recording = True
    extension = FieldNotesExtension(build=build)
    names = [e for e in config.markdown_extensions if e != "fieldnotes.extension"]
    md = markdown.Markdown(extensions=[*names, extension], extension_configs=config.mdx_configs)
    md.postprocessors.deregister("fieldnotes_claims")  # the claims are the build's to check, against what is recorded
    docs = Path(config.docs_dir).name
    pages = [f"{docs}/{file.src_uri}" for file in get_files(config).documentation_pages()]
    pages = [p for p in pages if not only or any(p.startswith(o) for o in only)]
    for page in pages:
        md.reset()
        source = (root / page).read_text(encoding="utf-8")
        extension.state.page = PageInfo(page, "", source)
        md.convert(get_data(source)[0])  # as MkDocs converts it: without its front matter
    blocks: CodeBlocks | None = build.code_blocks
    if blocks is None:
        return 0
    blocks.close()
    for page in pages:
        sections, path = blocks.sections.get(page, []), page_outputs.outputs_path(page)
        if page in blocks.failed:  # a cut-off output is never recorded
            print(f"timed out {page}: {path} left as it was")
        elif sections or (root / path).exists():
            print(f"{'updated  ' if page_outputs.write(root, page, sections) else 'unchanged'} {path}")
    return 1 if blocks.failed else 0


def format_block(extension, snippet, source: str, language: str, options: dict, md, page, state) -> str:
    """A block the extension does not run as a snippet file: a block of code, or any block of a session, run
    by the build's `CodeBlocks` (made at the first); nothing for a snippet file's block while recording
    (`fieldnotes.record` records those)."""
    build = extension.build
    if snippet is not None and not options.get("session"):
        return ""
    if build.code_blocks is None:
        build.code_blocks = CodeBlocks(build)
        if not build.warn:  # a host without a build's end (Zensical): said when its process ends
            atexit.register(lambda: (note := build.code_blocks.note()) and print(note, file=sys.stderr))
    return build.code_blocks.format(extension, source, language, options, md, page, state)
