"""Fixtures the probes of several pages share."""

from __future__ import annotations

import inspect

import pytest


@pytest.fixture
def dynamo():
    """A fresh compile cache, and the hook-guard setting restored afterwards."""
    import torch._dynamo

    skip = torch._dynamo.config.skip_nnmodule_hook_guards
    torch.compiler.reset()
    yield torch._dynamo.config
    torch._dynamo.config.skip_nnmodule_hook_guards = skip
    torch.compiler.reset()


# The names a probe reaches torch's operator database through (tests/probes/_op_sweep.py).
_OP_SWEEP_NAMES = ("_op_sweep", "first_samples(", "entries(")


def pytest_collection_modifyitems(items):
    """Every probe that reads the operator database goes to one xdist worker, which imports it once: its
    import costs more than most probes, and every other worker would pay it again."""
    for item in items:
        function = getattr(item, "function", None)
        if function is None or item.get_closest_marker("xdist_group") or "probes" not in item.path.parts:
            continue
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            continue
        if any(name in source for name in _OP_SWEEP_NAMES):
            item.add_marker(pytest.mark.xdist_group("op-db"))
