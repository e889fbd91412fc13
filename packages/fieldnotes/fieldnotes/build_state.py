"""What one build knows: made by the plugin in `on_config`, dropped with the build. Nothing of a build is
kept in a module: a second build in the same process (a test, `mkdocs serve`) starts from its own."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes.blocks import Page
from fieldnotes.cache import Store
from fieldnotes.config import FieldNotesConfig
from fieldnotes.examples import torch_version


@dataclass
class Build:
    root: Path
    """The project's folder: where mkdocs.yml, snippets/ and .cache/ are."""
    config: FieldNotesConfig
    store: Store
    dirty: bool = False
    """`--dirty`: only changed pages are rebuilt, so the build does not see every entry it needs."""
    markdown_settings: str = ""
    """mkdocs.yml's text: an example's block is rendered by the Markdown extensions as it configures them."""
    started: float = field(default_factory=time.time)
    """When the build started, by the store's clock (`Store.now`): what it did not use since goes."""
    printed_by: str = ""
    """What prints the outputs, as pages and drift messages name it: "torch 2.13.0" or "Python 3.11.2"."""
    page_path: str = ""
    """The page being rendered, as warnings name it: docs/leaf-vs-intermediate.md."""
    pages: dict[str, Page] = field(default_factory=dict)
    """Every page's source, parsed once at on_files (`fieldnotes.blocks.parse`), by its src_uri, in the
    order MkDocs renders them: what every feature reads of a page's blocks and diagrams."""

    @classmethod
    def of(cls, config_file: str, config: FieldNotesConfig, dirty: bool = False) -> Build:
        root = Path(config_file).parent
        store = Store(root, reuse=config.cache)
        printed_by = f"torch {torch_version()}" if config.torch else f"Python {platform.python_version()}"
        settings = Path(config_file).read_text(encoding="utf-8")
        started = store.now() if config.cache else time.time()
        return cls(root, config, store, dirty, settings, started, printed_by)
