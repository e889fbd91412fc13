"""Each integration with another package's internals (fieldnotes/integrations/) still matches them: these
tests read the installed package, so an upgrade that changes one of them fails here, by name, before a
build quietly stops reusing anything or forking the notebook's kernel. Outside the versions in `TESTED`
they stay off."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import subprocess
import sys
import textwrap
import threading

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_client.provisioning import LocalProvisioner
from mkdocs_jupyter import nbconvert2
from mkdocs_jupyter import plugin as jupyter
from nbclient import NotebookClient

from fieldnotes import integrations
from fieldnotes.integrations import forked_kernel, notebook_runs
from fieldnotes.integrations.notebook_runs import NotebookRuns
from fieldnotes.jobs import Scheduler
from tests.conftest import ROOT


def test_the_installed_packages_are_the_tested_ones():
    """Catches an upgrade of mkdocs-jupyter or mkdocs-material past TESTED: the integrations would turn
    themselves off (builds get slower, silently); check them against the new version, then widen TESTED."""
    assert all(integrations.tested(distribution) for distribution in integrations.TESTED)


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


def test_notebook_runs_pass_what_mkdocs_jupyter_passes():
    """Catches mkdocs-jupyter passing nb2html other arguments: the hand-over would never match, and the
    notebook would be executed twice."""
    assert _nb2html_keywords() == {"execute", *notebook_runs._ARGUMENTS}


def test_notebook_runs_read_the_cache_as_mkdocs_jupyter_does():
    """Catches a change to the private helpers the runs call to skip a notebook already cached."""
    assert list(inspect.signature(jupyter._compute_cache_key).parameters) == ["nb_path", "config", "exec_nb"]
    assert list(inspect.signature(jupyter._get_cache_path).parameters) == ["cache_dir", "cache_key"]
    assert jupyter.convert.nb2html.__module__ == "mkdocs_jupyter.nbconvert2"


def test_the_converter_takes_its_kernel_manager_from_get_nbconvert_app():
    """Catches mkdocs-jupyter making its converter's settings elsewhere than `get_nbconvert_app`, or
    executing without nbconvert's ExecutePreprocessor section (where the forked kernel's manager is set):
    the notebook would run in a fresh interpreter again, importing torch once more."""
    calls = [
        node
        for node in ast.walk(ast.parse(inspect.getsource(nbconvert2.nb2html)))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "get_nbconvert_app"
    ]
    assert len(calls) == 1, "nb2html no longer calls the module's get_nbconvert_app once"
    execute = nbconvert2.get_nbconvert_app(execute=True).config["ExecutePreprocessor"]
    assert execute["enabled"] is True
    assert NotebookClient.class_traits()["kernel_manager_class"].metadata.get("config") is True


def _assigned(function) -> set[str]:
    """The attributes of `self` that `function` assigns."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return {
        target.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute) and getattr(target.value, "id", None) == "self"
    }


def test_the_forked_kernel_sets_up_what_jupyter_clients_launch_does():
    """Catches a change to the jupyter_client internals the forked kernel relies on: the kernel manager
    making its provisioner only when it has none, launching through the provisioner's `launch_kernel`,
    and what that sets on the provisioner (another attribute would be missing from a forked kernel's)."""
    pre_start = inspect.getsource(KernelManager._async_pre_start_kernel)
    assert "if self.provisioner is None" in pre_start and "self.provisioner.pre_launch(" in pre_start
    assert "self.provisioner.launch_kernel(kernel_cmd, **kw)" in inspect.getsource(KernelManager._async_launch_kernel)
    assert _assigned(LocalProvisioner.launch_kernel) == {"process", "pid", "pgid", "cwd"}
    assert _assigned(forked_kernel.ForkedProvisioner.launch_kernel) >= _assigned(LocalProvisioner.launch_kernel)
    assert issubclass(forked_kernel.ForkedKernelManager, AsyncKernelManager)
    assert NotebookClient(nbformat.v4.new_notebook()).kernel_manager_class is AsyncKernelManager  # what it replaces


def test_only_this_interpreters_ipykernel_is_forked():
    """Catches forking a kernel another interpreter (or another kernel) was asked to run, or one launched
    with standard streams of its own: those go to jupyter_client's own launch."""
    own = [sys.executable, "-m", "ipykernel_launcher", "-f", "kernel.json"]
    assert forked_kernel.forkable(own, {})
    assert not forked_kernel.forkable(["/usr/bin/python3", *own[1:]], {})
    assert not forked_kernel.forkable([sys.executable, "-m", "other_kernel", "-f", "kernel.json"], {})
    assert not forked_kernel.forkable(own, {"stdout": 1})


class _Plugin:
    """As much of mkdocs-jupyter's plugin as NotebookRuns.start reads: its default options, executing."""

    def __init__(self) -> None:
        plugin = jupyter.Plugin()
        plugin.load_config({"execute": True, "cache": False})
        self.config = dict(plugin.config)
        self.config.update({name: f"value of {name}" for name in notebook_runs._ARGUMENTS})

    def should_include(self, file) -> bool:
        return file.abs_src_path.endswith(".py")


class _File:
    def __init__(self, path: str) -> None:
        self.abs_src_path = path


def test_notebook_runs_hand_their_result_over_once_and_put_mkdocs_jupyter_back(monkeypatch, tmp_path):
    """Catches a hand-over that outlives its build (the next build in the process would get a stale
    conversion, or a forked kernel), or one that answers a call made with other arguments."""
    calls = []

    def convert(path, **arguments):
        calls.append((path, arguments))
        return f"html of {path}"

    monkeypatch.setattr(jupyter.convert, "nb2html", convert)
    app = nbconvert2.get_nbconvert_app
    notebook = str(tmp_path / "page.py")
    (tmp_path / "page.py").write_text("# %%\nprint(1)\n")
    arguments = {"execute": True, **{n: f"value of {n}" for n in notebook_runs._ARGUMENTS}}
    runs = NotebookRuns(Scheduler(tmp_path, preload=()))
    runs.start(_Plugin(), [_File(notebook), _File(str(tmp_path / "page.md"))])
    assert jupyter.convert.nb2html != convert
    assert nbconvert2.get_nbconvert_app(execute=True).config["ExecutePreprocessor"]["kernel_manager_class"] is (
        forked_kernel.ForkedKernelManager
    )
    assert "kernel_manager_class" not in nbconvert2.get_nbconvert_app(execute=False).config["ExecutePreprocessor"]
    assert jupyter.convert.nb2html(notebook, **arguments) == f"html of {notebook}"
    assert jupyter.convert.nb2html(notebook, **{**arguments, "theme": "other"}) == f"html of {notebook}"
    runs.close()
    assert jupyter.convert.nb2html is convert and nbconvert2.get_nbconvert_app is app
    assert [c[1]["theme"] for c in calls] == ["value of theme", "other"]  # the scheduler's run, then the other


def test_the_notebook_runs_in_a_slot_of_the_scheduler(monkeypatch, tmp_path):
    """Catches the notebook executed beside the scheduler (a thread or kernel of its own, not counted
    among the runs at once): with one slot, held by another run, its conversion waits for it."""
    started = threading.Event()
    monkeypatch.setattr(jupyter.convert, "nb2html", lambda path, **arguments: started.set() or "html")
    (tmp_path / "page.py").write_text("# %%\nprint(1)\n")
    scheduler = Scheduler(tmp_path, jobs=1, preload=())
    holding_started, release = threading.Event(), threading.Event()
    holding = scheduler.submit_call(lambda: holding_started.set() or release.wait(60))
    assert holding_started.wait(60)
    runs = NotebookRuns(scheduler)
    runs.start(_Plugin(), [_File(str(tmp_path / "page.py"))])
    try:
        assert not started.wait(1), "the notebook started while the scheduler's only slot was taken"
        release.set()
        assert started.wait(60), "the notebook never started once the slot was free"
        holding.result()
    finally:
        release.set()
        runs.close()
        scheduler.close()


KERNEL_CHECK = """import os
import sys
import nbformat
from nbclient import NotebookClient
from fieldnotes import runner
from fieldnotes.integrations.forked_kernel import ForkedKernelManager

if __name__ == "__main__":
    runner.start_server(("fieldnotes.torch.graph",))
    cell = (
        f"import os, sys; print('fieldnotes.torch.graph' in sys.modules, os.getppid() != {os.getpid()},"
        " os.listdir('.'))"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    notebook.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    folder = {"metadata": {"path": sys.argv[1]}}  # the notebook's folder, as mkdocs-jupyter gives it
    NotebookClient(notebook, kernel_manager_class=ForkedKernelManager, resources=folder).execute()
    print(notebook.cells[0].outputs[0]["text"], end="")
"""


def test_the_notebooks_kernel_is_a_fork_of_the_server(tmp_path):
    """Catches the notebook's kernel started as a fresh interpreter (it would import torch again) rather
    than as a fork of the server: the kernel has what the server imported (here `fieldnotes.torch.graph`, which a
    fresh kernel does not import), and its parent is not the process that asked for it. Catches, too, a
    kernel on TCP ports, whose start writes ipykernel's warning of unencrypted TCP into every build's log,
    and local sockets made in the notebook's folder (jupyter_client's relative default, under docs/,
    which `mkdocs serve` watches): the folder stays empty while the kernel runs."""
    (tmp_path / "kernel_check.py").write_text(KERNEL_CHECK)
    (tmp_path / "notebook_folder").mkdir()
    command = [sys.executable, str(tmp_path / "kernel_check.py"), str(tmp_path / "notebook_folder")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(done.stderr[-3000:], pytrace=False)
    assert done.stdout == "True True []\n"
    assert "WARNING" not in done.stderr, done.stderr


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
