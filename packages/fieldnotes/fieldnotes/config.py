"""The plugin's options (`plugins: - fieldnotes: ...` in mkdocs.yml), in one place for the build and for
`python -m fieldnotes.record`, which applies the same time limit outside a build. The package's
README.md lists them too.

The first five apply to everything the build runs; each feature has its options in a group of its own,
and `html` holds the rewrites of the written HTML, each off unless a site turns it on (each assumes the
site's stylesheet or scripts expect it):

    - fieldnotes:
        torch: true
        timeout: 20
        record_command: make update-outputs SNIPPET={snippet}
        execute: true
        cache: true
        api_index: {enabled: true, page: api.md}
        notebook_pages: {enabled: true}
        links: {enabled: true}
        html: {code_spans: true, indentation: true, output_lines: true}
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.utils.yaml import yaml_load

DEFAULT_TIMEOUT = 20.0


class ApiIndexConfig(Config):
    enabled = config_options.Type(bool, default=False)
    """A generated page listing every torch name the examples use (it asks the installed torch)."""
    page = config_options.Type(str, default="api.md")
    """Where the page is generated, as a page's source path; put it in the nav."""


class NotebookPagesConfig(Config):
    enabled = config_options.Type(bool, default=True)
    """The pages mkdocs-jupyter renders: their .py/.ipynb downloads, slim HTML and description.
    Nothing happens without mkdocs-jupyter among the plugins."""


class SearchMessagesConfig(Config):
    enabled = config_options.Type(bool, default=True)
    """A search entry for each error or warning an example prints that no heading names, linking the
    example (`fieldnotes.features.message_search`); with mkdocs-material's search plugin."""


class ColabConfig(Config):
    enabled = config_options.Type(bool, default=True)
    """An "Open in Colab" badge under the heading of each page that offers a notebook
    (`fieldnotes.features.colab`); shown only where the repository is known."""
    repository = config_options.Type(str, default="")
    """OWNER/REPO on GitHub; empty: GitHub Actions' GITHUB_REPOSITORY; neither: no badge."""
    branch = config_options.Type(str, default="notebooks")
    """The branch `python -m fieldnotes.features.colab publish` writes the built notebooks to."""
    versions_page = config_options.Type(str, default="")
    """A page (its source path) saying what other releases print, linked from the badge's sentence."""


class VersionsConfig(Config):
    """With `torch: true`: what other torch releases print (the committed drift reports, versions/*.json)."""

    page = config_options.Type(str, default="")
    """The page (its source path) written from the reports, which each output's note links to; empty: none."""
    notebook = config_options.Type(str, default="")
    """A notebook (a jupytext .py, run as a script) the drift report also runs under another torch."""
    prose = config_options.ListOfItems(config_options.Type(str), default=[])
    """The files (glob patterns) whose sentences naming another torch than the pin the report lists."""


class LinksConfig(Config):
    enabled = config_options.Type(bool, default=True)
    """Every internal link and anchor of the written site resolves (external URLs are not fetched)."""


class HtmlConfig(Config):
    code_spans = config_options.Type(bool, default=False)
    """Drop Pygments' spans of names, operators, punctuation, whitespace and f-string braces from every
    page's code (`fieldnotes.render.code_spans`): lighter pages, for a stylesheet that gives a code
    block's text the colour of names. With a theme's own colours, operators would change colour."""
    indentation = config_options.Type(bool, default=False)
    """Drop the templates' indentation from every written page (`fieldnotes.render.indentation`)."""
    output_lines = config_options.Type(bool, default=False)
    """Mark which lines of each output may wrap on a narrow column (`<w->`, `<i->`:
    `fieldnotes.render.output_lines`), for a stylesheet that wraps only those."""


class FieldNotesConfig(Config):
    torch = config_options.Type(bool, default=False)
    """The examples use torch: the build stops unless the torch the project pins is installed, every
    run's process starts with torch imported, and pages and drift messages name its version."""
    timeout = config_options.Type((int, float), default=DEFAULT_TIMEOUT)
    """Seconds an example may run, from its own start, before it is killed and the build fails."""
    execute = config_options.Type(bool, default=True)
    """False shows the recorded outputs without running anything (the benchmark's floor, a quick preview)."""
    cache = config_options.Type(bool, default=True)
    """Reuse an earlier run's output when the snippet and the environment are unchanged, and what the build
    made of unchanged input (a rendered block, a page's search entries; see cache.py)."""
    record_command = config_options.Type(str, default="python -m fieldnotes.record {snippet}")
    """How this project records one example's output, as a drift message tells the reader to run it;
    `{snippet}` stands for the example's path."""
    api_index = config_options.SubConfig(ApiIndexConfig)
    """Needs `torch: true`: it asks the installed torch about the names the examples use."""
    notebook_pages = config_options.SubConfig(NotebookPagesConfig)
    links = config_options.SubConfig(LinksConfig)
    colab = config_options.SubConfig(ColabConfig)
    search_messages = config_options.SubConfig(SearchMessagesConfig)
    versions = config_options.SubConfig(VersionsConfig)
    html = config_options.SubConfig(HtmlConfig)


def docs_dir(root: Path) -> str:
    """mkdocs.yml's `docs_dir` in `root`: where the pages are."""
    return yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8")).get("docs_dir") or "docs"


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
