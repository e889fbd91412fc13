"""The package keeps the shape ARCHITECTURE.md describes: a core that does not import MkDocs, no module
over 300 lines, and every module in the table that says where its tests are."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

PACKAGE = ROOT / "packages" / "fieldnotes" / "fieldnotes"
CORE = ("examples", "runner", "jobs", "cache", "blocks", "render.page_notebook")


def test_the_core_imports_no_mkdocs():
    """Catches a core module (what `record`, the shards and the tests use) that starts depending on MkDocs."""
    code = (
        f"import sys\nfor name in {CORE!r}:\n    __import__('fieldnotes.' + name)\nassert 'mkdocs' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_no_module_is_over_300_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 300
    }
    assert not long


def test_every_module_is_in_the_architecture_table():
    """Catches a module added without saying where it belongs and which tests check it."""
    table = (ROOT / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"`([\w/]+\.py)`", table))
    for module in PACKAGE.rglob("*.py"):
        path = module.relative_to(PACKAGE).as_posix()
        if module.name == "__init__.py" or path.startswith("torch/graph/"):
            continue  # a folder's own docstring, and torch/graph/ as one row
        assert path in named, f"ARCHITECTURE.md's module table does not name fieldnotes/{path}"


# MkDocs' own order of the events a plugin can have (its docs, "Events"): a build's global events, each
# page's events between on_env and on_post_build, then what comes after a build.
MKDOCS_EVENT_ORDER = (
    "startup config pre_build files nav env pre_page page_read_source page_markdown page_content"
    " page_context post_page post_build build_error serve shutdown"
).split()


def _events() -> list[str]:
    from fieldnotes.plugin import FieldNotesPlugin

    defined = [name for name in vars(FieldNotesPlugin) if name.startswith("on_")]  # in source order
    assert defined, "the plugin defines no event"
    return defined


def test_the_events_are_written_and_listed_in_the_order_mkdocs_calls_them():
    """Catches an event added out of MkDocs' order, or one the plugin's docstring does not list (its list
    is how a newcomer learns what runs when)."""
    import fieldnotes.plugin

    defined = _events()
    listed = re.findall(r"^- (on_\w+)", fieldnotes.plugin.__doc__, re.MULTILINE)
    assert listed == defined, f"the docstring lists {listed}, the class defines {defined}"
    order = [MKDOCS_EVENT_ORDER.index(name.removeprefix("on_")) for name in defined]
    assert order == sorted(order), f"not in the order MkDocs calls them: {defined}"


def test_every_event_is_typed():
    """Catches an event whose parameters or result carry no type (the issue's "events are typed")."""
    import inspect

    from fieldnotes.plugin import FieldNotesPlugin

    for name in _events():
        signature = inspect.signature(getattr(FieldNotesPlugin, name))
        parameters = list(signature.parameters.values())[1:]  # after self
        untyped = [p.name for p in parameters if p.annotation is inspect.Parameter.empty]
        assert not untyped, f"{name}: {untyped} have no type"
        assert signature.return_annotation is not inspect.Signature.empty, f"{name} has no return type"
