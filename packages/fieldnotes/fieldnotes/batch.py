"""Examples run outside a build, as the build runs them: each under its pages' time limit, through one
`Scheduler`, whose processes start with torch imported where the plugin's `torch:` option says so.
`record`, `run --shard` and the drift report run their examples here."""

from __future__ import annotations

from pathlib import Path

from fieldnotes import blocks, runner
from fieldnotes.config import docs_dir, project_config
from fieldnotes.examples import Example, snippets_dir
from fieldnotes.jobs import Scheduler, preload


def time_limits(root: Path) -> dict[str, float]:
    """Each snippet the pages include, with the longest limit a page gives it (a fence's own
    `timeout=`, else the plugin's `timeout`): a run outside a build serves every page that shows it."""
    default = project_config(root).timeout
    limits: dict[str, float] = {}
    for page in sorted((root / docs_dir(root)).rglob("*.md")):
        for block in blocks.parse(page.read_text(encoding="utf-8"), snippets_dir(root)).blocks:
            limit = block.timeout if block.timeout is not None else default
            limits[block.snippet] = max(limit, limits.get(block.snippet, 0.0))
    return limits


def run_examples(root: Path, examples: list[Example]) -> dict[str, runner.Run | runner.SnippetTimeout]:
    """Each example's run, or its timeout, by snippet, in the order given."""
    config = project_config(root)
    limits = time_limits(root)
    scheduler = Scheduler(root, preload=preload(root, config.torch))
    futures = {e.snippet: scheduler.submit(e.snippet, limits.get(e.snippet, config.timeout)) for e in examples}
    scheduler.close()
    return {snippet: _outcome(future) for snippet, future in futures.items()}


def _outcome(future) -> runner.Run | runner.SnippetTimeout:
    try:
        return future.result()
    except runner.SnippetTimeout as timeout:
        return timeout
