"""Re-record every example's expected output: `python -m fieldnotes.record [PATH...]` (`make update-outputs`).

Run it after a deliberate change (an edited snippet, a torch upgrade), then review `git diff snippets/`:
the diff of the .out files is exactly what the pages will now show.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fieldnotes import blocks, runner
from fieldnotes.config import project_config
from fieldnotes.examples import find_examples
from fieldnotes.jobs import Scheduler


def main(root: Path, only: list[str]) -> int:
    examples = [e for e in find_examples(root) if not only or any(e.snippet.startswith(o) for o in only)]
    # The limits the build applies: a fence's own timeout="SECONDS", else the plugin's in mkdocs.yml.
    default = project_config(root).timeout
    markdown = (page.read_text(encoding="utf-8") for page in sorted((root / "docs").rglob("*.md")))
    timeouts = blocks.timeouts(markdown, default)

    scheduler = Scheduler(root)
    futures = [scheduler.submit(e.snippet, timeouts.get(e.snippet, default)) for e in examples]
    scheduler.close()
    runs = [_outcome(future) for future in futures]
    failed = False
    for example, run in zip(examples, runs, strict=True):
        if isinstance(run, runner.SnippetTimeout):  # a cut-off output is never recorded
            print(f"timed out {example.snippet}: {run}; {example.recorded_path} left as it was", file=sys.stderr)
            failed = True
            continue
        changed = example.record(run)
        raised = " (raised: exit code 1, traceback recorded)" if run.exit_code else ""
        print(f"{'updated  ' if changed else 'unchanged'} {example.recorded_path}{raised}")
    orphans = set((root / "snippets").rglob("*.out")) - {root / e.recorded_path for e in find_examples(root)}
    for orphan in sorted(orphans):
        print(f"orphan    {orphan.relative_to(root)} has no snippet; delete it", file=sys.stderr)
    return 1 if orphans or failed else 0


def _outcome(future) -> runner.Run | runner.SnippetTimeout:
    try:
        return future.result()
    except runner.SnippetTimeout as timeout:
        return timeout


if __name__ == "__main__":
    # Optional arguments limit the run to snippets under those paths, e.g. snippets/faq.
    sys.exit(main(Path.cwd(), sys.argv[1:]))
