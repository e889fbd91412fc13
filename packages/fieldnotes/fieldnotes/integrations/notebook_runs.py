"""The notebook pages executed through the build's `Scheduler`, their kernels forked from its fork
server, while MkDocs reads and renders every other page.

mkdocs-jupyter executes a notebook only when it renders that page, after the pages before it, in a
kernel it starts as a fresh interpreter, which imports torch again. Here the same conversion
(mkdocs-jupyter's own `convert.nb2html`, executing) is started when the files are known, as one run of
the build's scheduler (it holds a worker, like any run, while its kernel computes), with nbclient's
kernel manager `ForkedKernelManager` (`fieldnotes.integrations.forked_kernel`). The result is handed
back through mkdocs-jupyter's own call, and only when that call is made with the very arguments the
scheduler's run used; otherwise mkdocs-jupyter runs the notebook itself, as it would without this
module (its kernel forked all the same, while the build lasts). Nothing is started when its cache
already holds the page.

This patches internals of mkdocs-jupyter (`convert.nb2html`, which its plugin calls;
`nbconvert2.get_nbconvert_app`, which makes the converter's settings; the plugin module's
`_compute_cache_key` and `_get_cache_path`), checked by `fieldnotes.integrations`; the patch lasts one
build: `NotebookRuns.close` puts the originals back.
"""

from __future__ import annotations

import functools
from concurrent.futures import Future

from mkdocs_jupyter import plugin as jupyter

from fieldnotes import integrations, jobs
from fieldnotes.features import Feature
from fieldnotes.jobs import Scheduler

# The arguments mkdocs-jupyter 0.26.3 passes to nb2html in on_pre_page (besides the path): any
# difference means no hand-over.
_ARGUMENTS = (
    "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt", "remove_tag_config",
    "highlight_extra_classes", "include_requirejs", "custom_mathjax_url",
)  # fmt: skip


class NotebookRuns(Feature):
    """The notebook conversions of one build."""

    order = 30  # after the diagrams' runs, before the examples': the exercise's page is rendered last

    def __init__(self, scheduler: Scheduler, jupyter_plugin=None) -> None:
        self.scheduler = scheduler
        self.jupyter = jupyter_plugin
        """mkdocs-jupyter's plugin of this build, whose notebooks `on_files` starts (or `start` is given one)."""
        self._pending: dict[str, tuple[dict, Future]] = {}
        self._convert = None  # mkdocs-jupyter's own nb2html while the hand-over is in place
        self._app = None  # mkdocs-jupyter's own get_nbconvert_app, likewise

    def _nb2html(self, nb_path, **arguments):
        pending = self._pending.pop(str(nb_path), None)
        if pending is not None and pending[0] == arguments:
            return pending[1].result()
        return self._convert(nb_path, **arguments)

    def _get_nbconvert_app(self, *args, **kwargs):
        from fieldnotes.integrations import forked_kernel  # jupyter_client: only to execute
        from fieldnotes.integrations.forked_kernel import ForkedKernelManager

        app = self._app(*args, **kwargs)
        execute = app.config.get("ExecutePreprocessor")
        if execute and execute.get("enabled") and all(map(integrations.tested, forked_kernel.RELIES_ON)):
            execute["kernel_manager_class"] = ForkedKernelManager
        return app

    def on_files(self, files, config) -> None:
        self.start(self.jupyter, files)

    def start(self, jupyter_plugin, files) -> None:
        """Submit the conversion of each notebook page mkdocs-jupyter will execute."""
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
                from mkdocs_jupyter import nbconvert2  # the converter: loaded only when a notebook executes

                self._convert, self._app = jupyter.convert.nb2html, nbconvert2.get_nbconvert_app
                jupyter.convert.nb2html = self._nb2html
                nbconvert2.get_nbconvert_app = self._get_nbconvert_app
            convert = functools.partial(self._convert, file.abs_src_path, **arguments)
            converted = self.scheduler.submit_call(convert, priority=jobs.FIRST)  # its cells have no time limit
            self._pending[file.abs_src_path] = (arguments, converted)

    def close(self) -> None:
        """Put mkdocs-jupyter's functions back; a conversion still under way finishes in its thread."""
        if self._convert is not None:
            from mkdocs_jupyter import nbconvert2

            jupyter.convert.nb2html, nbconvert2.get_nbconvert_app = self._convert, self._app
            self._convert = self._app = None
        self._pending.clear()
