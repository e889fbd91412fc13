"""What a recording (`python -m fieldnotes.record`) does more with `torch: true` (registered under
`fieldnotes.recorders`): it refuses to record unless the pinned torch is installed, names that torch for
each output it writes in snippets/recorded-with.json, and records the backward pass of every snippet a
diagram draws (`fieldnotes.torch.steps`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from fieldnotes import runner
from fieldnotes.examples import Example, snippets_dir, torch_version

MANIFEST = "recorded-with.json"
"""In the snippets folder, beside the outputs: for each recorded output, the torch that printed it last."""


def recorder(root: Path, only: list[str], config) -> TorchRecording | None:
    return TorchRecording(root, only) if config.torch else None


class TorchRecording:
    def __init__(self, root: Path, only: list[str]) -> None:
        from fieldnotes.torch.pin import TorchMismatch, check_torch

        self.root, self.only = root, only
        self.refused = ""
        self.recorded_with: dict[str, str] = {}
        try:
            check_torch(root)
        except TorchMismatch as mismatch:
            self.refused = str(mismatch)

    def recorded(self, example: Example) -> None:
        self.recorded_with[example.recorded_path] = f"torch {torch_version()}"

    def finish(self, all_examples: list[Example]) -> bool:
        """Write the manifest and the recorded steps; True if a step's run failed."""
        write_manifest(self.root, self.recorded_with, {e.recorded_path for e in all_examples})
        return record_steps(self.root, self.only)


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
    path = root / snippets_dir(root) / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_manifest(root: Path, recorded_with: dict[str, str], outputs: set[str]) -> None:
    """Merge this run's entries into the manifest, dropping outputs whose snippet is gone."""
    entries = {k: v for k, v in {**read_manifest(root), **recorded_with}.items() if k in outputs}
    text = json.dumps(dict(sorted(entries.items())), indent=1) + "\n"
    (root / snippets_dir(root) / MANIFEST).write_text(text, encoding="utf-8")


