"""Modules that a build loads only once it uses them.

When MkDocs loads mkdocs-jupyter, its plugin module imports jupytext and its converter (nbconvert and
the rest): a slow start, paid by every build, although a build whose notebook page comes
from mkdocs-jupyter's cache uses neither. `defer()` makes `import NAME` give a stand-in that loads the
real module at its first attribute access: a build that converts a notebook
pays the same cost then, one that does not never pays it.

It must run before mkdocs-jupyter's plugin is loaded: fieldnotes comes before it in mkdocs.yml's
plugins, and fieldnotes/plugin.py calls it when MkDocs loads it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import types

HEAVY = ("jupytext", "mkdocs_jupyter.convert")
_loading = threading.RLock()


class _Deferred(types.ModuleType):
    """A module whose code has not run yet. It holds what the import system reads (__spec__, __path__,
    ...), so `import NAME` elsewhere does not load it (importlib's LazyLoader would: it loads on any
    attribute); any other attribute runs the module's code in this very object, which then is the
    module."""

    def __getattr__(self, attr):
        with _loading:
            if type(self) is _Deferred:
                self.__class__ = types.ModuleType
                self.__spec__.loader.exec_module(self)
        return getattr(self, attr)


def defer(*names: str) -> None:
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            continue  # not installed: an import of it fails as it would have
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)  # as the import system does for a submodule
