"""Each integration with another package's internals (fieldnotes/integrations/) still matches them: these
tests read the installed package, so an upgrade that changes one of them fails here, by name, before a
build quietly stops reusing or prefetching anything. Outside the versions in `TESTED` they stay off."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import subprocess
import sys
import textwrap

from mkdocs_jupyter import plugin as jupyter

from fieldnotes import integrations
from fieldnotes.integrations import notebook_prefetch
from fieldnotes.integrations.notebook_prefetch import Prefetch
from tests.conftest import ROOT


def test_the_installed_packages_are_the_tested_ones():
    """Catches an upgrade of mkdocs-jupyter or mkdocs-material past TESTED: the integrations would turn
    themselves off (builds get slower, silently); check them against the new version, then widen TESTED."""
    assert integrations.tested("mkdocs-jupyter") and integrations.tested("mkdocs-material")


def test_an_untested_version_turns_an_integration_off(monkeypatch):
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.99" if name == "mkdocs-jupyter" else real(name))
    assert not integrations.tested("mkdocs-jupyter") and integrations.tested("mkdocs-material")


def _nb2html_keywords() -> set[str]:
    """The keyword arguments mkdocs-jupyter's on_pre_page passes to convert.nb2html, read from its code."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(jupyter.Plugin.on_pre_page)))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "nb2html"
    ]
    assert len(calls) == 1, "on_pre_page no longer calls convert.nb2html once"
    return {keyword.arg for keyword in calls[0].keywords}


def test_prefetch_passes_what_mkdocs_jupyter_passes():
    """Catches mkdocs-jupyter passing nb2html other arguments: the hand-over would never match, and the
    notebook would be executed twice."""
    assert _nb2html_keywords() == {"execute", *notebook_prefetch._ARGUMENTS}


def test_prefetch_reads_the_cache_as_mkdocs_jupyter_does():
    """Catches a change to the private helpers the prefetch calls to skip a notebook already cached."""
    assert list(inspect.signature(jupyter._compute_cache_key).parameters) == ["nb_path", "config", "exec_nb"]
    assert list(inspect.signature(jupyter._get_cache_path).parameters) == ["cache_dir", "cache_key"]
    assert jupyter.convert.nb2html.__module__ == "mkdocs_jupyter.nbconvert2"


class _Plugin:
    """As much of mkdocs-jupyter's plugin as Prefetch.start reads: its default options, executing."""

    def __init__(self) -> None:
        plugin = jupyter.Plugin()
        plugin.load_config({"execute": True, "cache": False})
        self.config = dict(plugin.config)
        self.config.update({name: f"value of {name}" for name in notebook_prefetch._ARGUMENTS})

    def should_include(self, file) -> bool:
        return file.abs_src_path.endswith(".py")


class _File:
    def __init__(self, path: str) -> None:
        self.abs_src_path = path


def test_prefetch_hands_its_result_over_once_and_puts_nb2html_back(monkeypatch, tmp_path):
    """Catches a hand-over that outlives its build (the next build in the process would get a stale
    conversion), or one that answers a call made with other arguments."""
    calls = []

    def convert(path, **arguments):
        calls.append((path, arguments))
        return f"html of {path}"

    monkeypatch.setattr(jupyter.convert, "nb2html", convert)
    notebook = str(tmp_path / "page.py")
    (tmp_path / "page.py").write_text("# %%\nprint(1)\n")
    arguments = {"execute": True, **{n: f"value of {n}" for n in notebook_prefetch._ARGUMENTS}}
    prefetch = Prefetch()
    prefetch.start(_Plugin(), [_File(notebook), _File(str(tmp_path / "page.md"))])
    assert jupyter.convert.nb2html != convert
    assert jupyter.convert.nb2html(notebook, **arguments) == f"html of {notebook}"
    assert jupyter.convert.nb2html(notebook, **{**arguments, "theme": "other"}) == f"html of {notebook}"
    prefetch.close()
    assert jupyter.convert.nb2html is convert
    assert [c[1]["theme"] for c in calls] == ["value of theme", "other"]  # the background run, then the other


def test_lazy_imports_defer_mkdocs_jupyters_heavy_imports_until_used():
    """Catches mkdocs-jupyter using jupytext or its converter when its module loads (the deferral would
    pay the second it saves), or a stand-in that no longer loads the real module when used."""
    code = (
        "import sys, types\n"
        "from fieldnotes.integrations import lazy_imports\n"
        "lazy_imports.defer(*lazy_imports.HEAVY)\n"
        "import mkdocs_jupyter.plugin\n"
        "assert 'nbconvert' not in sys.modules, 'the converter was loaded with the plugin'\n"
        "assert type(sys.modules['jupytext']) is lazy_imports._Deferred\n"
        "assert callable(sys.modules['jupytext'].reads)\n"
        "assert type(sys.modules['jupytext']) is types.ModuleType\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_search_entries_use_the_themes_index_as_it_is():
    """Catches a change to the theme's SearchIndex that search_entries builds on: a scratch index made
    from the build's config, its add_entry_from_context and its entries list."""
    from material.plugins.search.plugin import SearchIndex, SearchPlugin

    assert list(inspect.signature(SearchIndex.__init__).parameters) == ["self", "config"]
    assert list(inspect.signature(SearchIndex.add_entry_from_context).parameters) == ["self", "page"]
    assert SearchIndex(lang=["en"]).entries == []
    assert "self.search_index.add_entry_from_context(page)" in inspect.getsource(SearchPlugin.on_page_context)
