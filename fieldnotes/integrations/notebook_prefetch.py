"""Execute the notebook pages in the background while MkDocs reads and renders every other page.

mkdocs-jupyter executes a notebook only when it renders that page, after the pages before it, one
at a time, so its kernel (seconds of importing torch and computing) adds to the build's length.
Started when the files are known instead, the same conversion overlaps the rest of the build. The
result is handed back through mkdocs-jupyter's own call, and only when that call is made with the
very arguments the background run used; otherwise mkdocs-jupyter runs the notebook itself, as it
would without this module. Nothing is started when its cache already holds the page.

This patches two internals of mkdocs-jupyter (`convert.nb2html`, which its plugin calls, and the
plugin module's `_compute_cache_key` and `_get_cache_path`), checked by `fieldnotes.integrations`;
the patch lasts one build: `Prefetch.close` puts the original back.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from mkdocs_jupyter import plugin as jupyter

# The arguments mkdocs-jupyter 0.26.3 passes to nb2html in on_pre_page (besides the path): any
# difference means no hand-over.
_ARGUMENTS = (
    "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt", "remove_tag_config",
    "highlight_extra_classes", "include_requirejs", "custom_mathjax_url",
)  # fmt: skip


class Prefetch:
    """The background conversions of one build."""

    def __init__(self) -> None:
        self._pending: dict[str, tuple[dict, Future]] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._convert = None  # mkdocs-jupyter's own nb2html while the hand-over is in place

    def _nb2html(self, nb_path, **arguments):
        pending = self._pending.pop(str(nb_path), None)
        if pending is not None and pending[0] == arguments:
            return pending[1].result()
        return self._convert(nb_path, **arguments)

    def start(self, jupyter_plugin, files) -> None:
        """Start converting, in the background, each notebook page mkdocs-jupyter will execute."""
        config = jupyter_plugin.config
        if not config["execute"] or config["execute_ignore"]:
            return
        for file in files:
            if not jupyter_plugin.should_include(file):
                continue
            key = jupyter._compute_cache_key(file.abs_src_path, config, True)
            if config["cache"] and jupyter._get_cache_path(config["cache_dir"], key).exists():
                continue
            arguments = {"execute": True, **{name: config[name] for name in _ARGUMENTS}}
            if self._convert is None:  # route mkdocs-jupyter's conversions through _nb2html
                self._convert = jupyter.convert.nb2html
                jupyter.convert.nb2html = self._nb2html
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notebook")
            converted = self._pool.submit(self._convert, file.abs_src_path, **arguments)
            self._pending[file.abs_src_path] = (arguments, converted)

    def close(self) -> None:
        """Put mkdocs-jupyter's nb2html back; a conversion still under way finishes in its thread."""
        if self._convert is not None:
            jupyter.convert.nb2html = self._convert
            self._convert = None
            self._pool.shutdown(wait=False)
        self._pending.clear()
