"""The plugin's options (`plugins: - fieldnotes: ...` in mkdocs.yml), in one place for the build and for
`python -m fieldnotes.record`, which applies the same time limit outside a build."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.utils.yaml import yaml_load

DEFAULT_TIMEOUT = 20.0


class FieldNotesConfig(Config):
    timeout = config_options.Type((int, float), default=DEFAULT_TIMEOUT)
    """Seconds an example may run before it is killed and the build fails."""
    execute = config_options.Type(bool, default=True)
    """False shows the recorded outputs without running anything (the benchmark's floor, a quick preview)."""
    cache = config_options.Type(bool, default=True)
    """Reuse an earlier run's output when the snippet and the environment are unchanged, and what the build
    made of unchanged input (a rendered block, a page's search entries; see cache.py)."""


def project_config(root: Path) -> FieldNotesConfig:
    """The options mkdocs.yml in `root` gives the plugin (defaults where it gives none)."""
    plugins = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8")).get("plugins") or []
    options = next((p["fieldnotes"] or {} for p in plugins if isinstance(p, dict) and "fieldnotes" in p), {})
    config = FieldNotesConfig(config_file_path=str(root / "mkdocs.yml"))
    config.load_dict(options)
    failed, _ = config.validate()
    if failed:
        raise ValueError(f"{root / 'mkdocs.yml'}: fieldnotes: " + "; ".join(f"{k}: {e}" for k, e in failed))
    return config
