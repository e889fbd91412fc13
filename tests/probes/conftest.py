"""Fixtures the probes of several pages share."""

from __future__ import annotations

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
