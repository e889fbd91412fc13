"""Code that relies on other packages' internals, each an optimisation: the site is the same without it,
only slower to build. Each names the versions of the package it was checked with (`TESTED`); with any
other version installed it stays off, and tests/test_integrations.py fails when one of the internals it
relies on changes.

- `lazy_imports`: mkdocs-jupyter's plugin module imports jupytext and its converter at load, and uses
  them only when it converts a notebook.
- `notebook_runs`: mkdocs-jupyter's `convert.nb2html`, the arguments its `on_pre_page` passes, its
  `nbconvert2.get_nbconvert_app`, and its `_compute_cache_key` and `_get_cache_path`.
- `forked_kernel`: jupyter_client's `KernelManager._async_pre_start_kernel` (it makes a provisioner only
  when it has none) and what `LocalProvisioner.launch_kernel` sets; nbclient's `kernel_manager_class`;
  ipykernel's launcher, run as `python -m` runs it, and its `JPY_PARENT_PID`.
- `search_entries`: mkdocs-material's search plugin's `search_index` (`SearchIndex(**config)`, its
  `add_entry_from_context` and `entries`).
"""

from __future__ import annotations

import importlib.metadata

from packaging.specifiers import SpecifierSet

TESTED = {
    "mkdocs-jupyter": SpecifierSet(">=0.26.3,<0.28"),
    "mkdocs-material": SpecifierSet(">=9.8,<9.9"),
    "jupyter-client": SpecifierSet(">=8.10,<8.11"),
    "nbclient": SpecifierSet(">=0.11,<0.12"),
    "ipykernel": SpecifierSet(">=7.4,<7.5"),
}


def tested(distribution: str) -> bool:
    """Whether the installed `distribution` is one the integrations with it were checked with."""
    try:
        version = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return TESTED[distribution].contains(version, prereleases=True)
