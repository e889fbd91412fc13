"""What one build knows: made by the plugin in `on_config`, dropped with the build. Nothing of a build is
kept in a module: a second build in the same process (a test, `mkdocs serve`) starts from its own. A host
that has no build (Zensical, `markdown.markdown`) gets one per project and process (`standalone`)."""

from __future__ import annotations

import importlib.metadata
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fieldnotes.blocks import Page
from fieldnotes.cache import Store
from fieldnotes.config import FieldNotesConfig, docs_dir, project_config
from fieldnotes.examples import torch_version
from fieldnotes.jobs import Scheduler, preload
from fieldnotes.runs import Runs


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
    examples: list = field(default_factory=list)
    """The project's examples (`fieldnotes.examples.Example`), found at on_files."""
    notebooks: dict[str, str] = field(default_factory=dict)
    """A page's source -> the notebook it offers, by its path in the site (the downloads, the notebook
    pages): what the Colab badge opens."""
    diagrams: object = None
    """How a page's notebook draws its diagrams (the torch features give it), or None: captions only."""
    docs_dir: str = "docs"
    scheduler: Scheduler | None = None
    runs: Runs | None = None
    """The examples' runs, started ahead of time by the plugin or when a block asks (`fieldnotes.runs`)."""
    warn: bool = False
    """How the fence reports a problem: as a warning (a strict MkDocs build fails on it), or raised."""
    block_ids: bool = False
    """Whether each block's title gets the id the API index links to."""
    block_notes: list[Callable] = field(default_factory=list)
    """What follows a block's output, each given its snippet and the page (what another torch prints)."""
    page_ids: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    code_blocks: object = None
    """The blocks that are not one snippet file (`fieldnotes.code_blocks.of`), made at the first one."""
    recording: bool = False
    """`python -m fieldnotes record`: what the blocks of code print is recorded, not compared."""
    """The ids each page's titles got (anchor, which time on the page), by the page's path."""

    @classmethod
    def of(cls, config_file: str, config: FieldNotesConfig, dirty: bool = False) -> Build:
        root = Path(config_file).resolve().parent  # ProperDocs gives the path as typed: "mkdocs.yml"
        store = Store(root, reuse=config.cache)
        printed_by = f"Python {platform.python_version()}"
        if config.torch:
            try:
                printed_by = f"torch {torch_version()}"
            except importlib.metadata.PackageNotFoundError:  # the torch features' pin check stops the build
                printed_by = "torch (not installed)"
        settings = Path(config_file).read_text(encoding="utf-8")
        started = store.now() if config.cache else time.time()
        build = cls(root, config, store, dirty, settings, started, printed_by, docs_dir=docs_dir(root))
        build.scheduler = Scheduler(root, preload=preload(root, config.torch))
        build.runs = Runs(store, build.scheduler, printed_by, config.record_command)
        return build

    @classmethod
    def standalone(cls, root: Path) -> Build:
        """The build of the project in `root` (its mkdocs.yml's options) for a host that makes none: one
        per project and process, as the host's process is the build's. Its problems are raised."""
        if root not in _STANDALONE:
            _STANDALONE[root] = cls.of(str(root / "mkdocs.yml"), project_config(root))
        return _STANDALONE[root]


_STANDALONE: dict[Path, Build] = {}
