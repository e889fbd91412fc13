"""Execute the notebook pages in the background while MkDocs reads and renders every other page.

mkdocs-jupyter executes a notebook only when it renders that page, after the pages before it, one
at a time, so its kernel (seconds of importing torch and computing) adds to the build's length.
Started when the files are known instead, the same conversion overlaps the rest of the build. The
result is handed back through mkdocs-jupyter's own call, and only when that call is made with the
very arguments the background run used; otherwise mkdocs-jupyter runs the notebook itself, as it
would without this module. Nothing is started when its cache already holds the page.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from mkdocs_jupyter import plugin as jupyter

_pending: dict[str, tuple[dict, Future]] = {}
_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notebook")
_convert = None  # mkdocs-jupyter's own nb2html, once a notebook is to be converted (nbconvert: a second to import)


def _nb2html(nb_path, **arguments):
    pending = _pending.pop(str(nb_path), None)
    if pending is not None and pending[0] == arguments:
        return pending[1].result()
    return _convert(nb_path, **arguments)


def _hand_over() -> None:
    """Route mkdocs-jupyter's conversions through _nb2html (once)."""
    global _convert
    if _convert is None:
        _convert = jupyter.convert.nb2html
        jupyter.convert.nb2html = _nb2html


def start(jupyter_plugin, files) -> None:
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
        # The arguments mkdocs-jupyter 0.26.3 passes in on_pre_page; any difference means no hand-over.
        arguments = {
            "execute": True,
            "kernel_name": config["kernel_name"],
            "theme": config["theme"],
            "allow_errors": config["allow_errors"],
            "show_input": config["show_input"],
            "no_input": config["no_input"],
            "no_prompt": config["no_prompt"],
            "remove_tag_config": config["remove_tag_config"],
            "highlight_extra_classes": config["highlight_extra_classes"],
            "include_requirejs": config["include_requirejs"],
            "custom_mathjax_url": config["custom_mathjax_url"],
        }
        _hand_over()
        _pending[file.abs_src_path] = (arguments, _pool.submit(_convert, file.abs_src_path, **arguments))
