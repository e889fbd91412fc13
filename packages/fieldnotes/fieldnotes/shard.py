"""`python -m fieldnotes run --shard K/N`: run one shard of the project's examples into its store and
report their drift, so that a site with many examples can split them over a CI matrix; the final
build, given the shards' stores (their `.cache/fieldnotes/` folders copied into one), runs none of
them again. The shards are every N-th example in path order, so each run of one shard takes the same.

A run is stored only when it shows no drift, exactly as the build stores it: same key, same entry.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from fieldnotes import runner
from fieldnotes.batch import run_examples
from fieldnotes.cache import Store
from fieldnotes.config import project_config
from fieldnotes.examples import Example, drift, project_examples


def parse_shard(text: str) -> tuple[int, int]:
    """'2/4' -> (2, 4); a ValueError says what is wrong."""
    number, _, count = text.partition("/")
    shard, shards = int(number), int(count)
    if not 1 <= shard <= shards:
        raise ValueError(f"shard {text}: K/N takes 1 <= K <= N")
    return shard, shards


def shard_of(examples: list[Example], shard: int, shards: int) -> list[Example]:
    return examples[shard - 1 :: shards]


def run_shard(root: Path, shard: int, shards: int) -> int:
    """Run the shard's examples that the store does not hold yet; print each one's state; 1 if any drifted."""
    config = project_config(root)
    store = Store(root, reuse=config.cache)
    examples = shard_of(project_examples(root), shard, shards)
    pending = run_examples(root, [e for e in examples if store.load_run(e) is None])
    failed = False
    for example in examples:
        if example.snippet not in pending:
            print(f"stored    {example.snippet}")
            continue
        run = pending[example.snippet]
        if isinstance(run, runner.SnippetTimeout):
            print(f"timed out {example.snippet}: {run}", file=sys.stderr)
            failed = True
            continue
        printed_by = None if config.torch else f"Python {platform.python_version()}"
        problem = drift(example, run, printed_by, config.record_command)
        if problem is None:
            store.save_run(example, run)
            print(f"ran       {example.snippet}")
        else:
            print(f"drifted   {problem}", file=sys.stderr)
            failed = True
    return 1 if failed else 0
