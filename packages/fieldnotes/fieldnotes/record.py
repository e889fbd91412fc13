"""Record what the examples print as their expected outputs (snippets/**/*.out).

Run it after a deliberate change (an edited snippet, a torch upgrade), then review `git diff snippets/`:
the diff of the .out files is exactly what the pages will now show.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fieldnotes import runner
from fieldnotes.batch import run_examples
from fieldnotes.code_blocks import record_pages
from fieldnotes.config import docs_dir, project_config
from fieldnotes.examples import SNIPPETS_DIR, project_examples, torch_version

MANIFEST = f"{SNIPPETS_DIR}/recorded-with.json"
"""Beside the outputs: for each recorded output, the torch that printed it last."""

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
    uses_torch = project_config(root).torch
    if uses_torch:
        from fieldnotes.torch.pin import TorchMismatch, check_torch

        try:
            check_torch(root)
        except TorchMismatch as mismatch:
            print(f"fieldnotes.record: nothing recorded. {mismatch}", file=sys.stderr)
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
    recorded_with = {}
    for example in examples:
        run = runs[example.snippet]
        if isinstance(run, runner.SnippetTimeout):  # a cut-off output is never recorded
            print(f"timed out {example.snippet}: {run}; {example.recorded_path} left as it was", file=sys.stderr)
            failed = True
            continue
        changed = example.record(run)
        if uses_torch:
            recorded_with[example.recorded_path] = f"torch {torch_version()}"
        raised = " (raised: exit code 1, traceback recorded)" if run.exit_code else ""
        print(f"{'updated  ' if changed else 'unchanged'} {example.recorded_path}{raised}")
    if uses_torch:
        write_manifest(root, recorded_with, {e.recorded_path for e in all_examples})
        failed = record_steps(root, only) or failed
    orphans = set((root / SNIPPETS_DIR).rglob("*.out")) - {root / e.recorded_path for e in all_examples}
    for orphan in sorted(orphans):
        print(f"orphan    {orphan.relative_to(root)} has no snippet; delete it", file=sys.stderr)
    if not only or pages_only:  # the pages' blocks of code, recorded beside each page (page.md.out)
        failed = record_pages(root, pages_only) != 0 or failed
    return 1 if orphans or failed else 0


def record_steps(root: Path, only: list[str]) -> bool:
    """Record the backward pass of every snippet a diagram draws (fieldnotes.torch.steps); True if one failed."""
    from fieldnotes.torch import steps

    failed = False
    snippets = [s for s in steps.diagram_snippets(root) if not only or any(s.startswith(o) for o in only)]
    for snippet, recorded in steps.run_steps(root, snippets).items():
        path = steps.recorded_path(snippet)
        if isinstance(recorded, runner.SnippetTimeout | runner.Run):
            print(f"failed    {path}: its run with the backward pass recorded failed; left as it was", file=sys.stderr)
            failed = True
        elif recorded is None:
            if (root / path).exists():
                (root / path).unlink()
                print(f"deleted   {path}: {snippet} runs no backward pass")
        else:
            print(f"{'updated  ' if steps.record(root, snippet, recorded) else 'unchanged'} {path}")
    return failed


def read_manifest(root: Path) -> dict[str, str]:
    path = root / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_manifest(root: Path, recorded_with: dict[str, str], outputs: set[str]) -> None:
    """Merge this run's entries into the manifest, dropping outputs whose snippet is gone."""
    entries = {k: v for k, v in {**read_manifest(root), **recorded_with}.items() if k in outputs}
    text = json.dumps(dict(sorted(entries.items())), indent=1) + "\n"
    (root / MANIFEST).write_text(text, encoding="utf-8")


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
