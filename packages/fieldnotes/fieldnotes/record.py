"""Record what the examples print as their expected outputs (snippets/**/*.out).

Run it after a deliberate change (an edited snippet, a torch upgrade), then review `git diff snippets/`:
the diff of the .out files is exactly what the pages will now show.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from pathlib import Path

from fieldnotes import runner
from fieldnotes.batch import run_examples
from fieldnotes.code_blocks import record_pages
from fieldnotes.config import docs_dir, project_config
from fieldnotes.examples import project_examples, snippets_dir

RECORDERS = "fieldnotes.recorders"
"""The entry-point group of what else a recording writes: each a callable given the project's folder
and the paths asked for, returning None or an object with `refused` (why nothing may be recorded, or
empty), `recorded(example)` and `finish(all_examples) -> failed` (the torch features register theirs)."""

USAGE = """\
examples:
  python -m fieldnotes.record                              every example (make update-outputs)
  python -m fieldnotes.record snippets/faq/in_place.py     just that one
  make update-outputs SNIPPET=snippets/faq/in_place.py     the same through make

Where mkdocs.yml says `torch: true`, it refuses to run when the installed torch is not the one
pyproject.toml pins: outputs are recorded with the pinned torch only, and each .out it writes is named,
with that torch, in snippets/recorded-with.json. To see what another torch changes without recording
anything: make drift-report TORCH=VERSION.
"""


def main(root: Path, only: list[str]) -> int:
    config = project_config(root)
    recorders = [r for e in entry_points(group=RECORDERS) if (r := e.load()(root, only, config)) is not None]
    for recorder in recorders:
        if recorder.refused:
            print(f"fieldnotes.record: nothing recorded. {recorder.refused}", file=sys.stderr)
            return 2
    docs = docs_dir(root)
    pages_only = [o for o in only if o.endswith(".md") or o.rstrip("/") == docs or o.startswith(f"{docs}/")]
    snippets_only = [o for o in only if o not in pages_only]
    all_examples = project_examples(root)
    examples = [e for e in all_examples if not snippets_only or any(e.snippet.startswith(o) for o in snippets_only)]
    if only and not pages_only and not examples:
        print(f"fieldnotes.record: no snippet under {' '.join(only)}", file=sys.stderr)
        return 2
    if only and not snippets_only:
        examples = []
    runs = run_examples(root, examples)
    failed = False
    for example in examples:
        run = runs[example.snippet]
        if isinstance(run, runner.SnippetTimeout):  # a cut-off output is never recorded
            print(f"timed out {example.snippet}: {run}; {example.recorded_path} left as it was", file=sys.stderr)
            failed = True
            continue
        changed = example.record(run)
        for recorder in recorders:
            recorder.recorded(example)
        raised = " (raised: exit code 1, traceback recorded)" if run.exit_code else ""
        print(f"{'updated  ' if changed else 'unchanged'} {example.recorded_path}{raised}")
    for recorder in recorders:
        failed = recorder.finish(all_examples) or failed
    orphans = set((root / snippets_dir(root)).rglob("*.out")) - {root / e.recorded_path for e in all_examples}
    for orphan in sorted(orphans):
        print(f"orphan    {orphan.relative_to(root)} has no snippet; delete it", file=sys.stderr)
    if not only or pages_only:  # the pages' blocks of code, recorded beside each page (page.md.out)
        failed = record_pages(root, pages_only) != 0 or failed
    return 1 if orphans or failed else 0


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m fieldnotes.record",
        description="Run examples and record what each prints as its expected output (snippets/**/NAME.out), "
        "under the build's time limits. A run that times out is not recorded. Review `git diff snippets/` "
        "afterwards: it is what the pages will show.",
        epilog=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", help="only snippets under these paths (files or folders); default: all")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main(Path.cwd(), parse_arguments(sys.argv[1:]).paths))
