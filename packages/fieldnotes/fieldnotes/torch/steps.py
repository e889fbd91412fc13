"""A snippet's backward pass as steps: recorded beside it, compared at every build, shown under its diagram.

The steps are an output like the snippet's `.out`: `snippets/grad_none/seed.steps.json` is what the
backward pass of `snippets/grad_none/seed.py` did when it was last recorded (`make update-outputs`),
one step a line, so that `git diff` shows a changed order or value as a changed line. Every snippet an
```autograd-graph fence draws has them (a snippet that runs no backward pass has none). The fence's run
records them (`fieldnotes.torch.graph.backward`, installed by `BEFORE`), and the build fails with a diff
when they differ from the recorded ones; the page shows them as an ordered list under the diagram, which
overrides/javascripts/stepper.js turns into a stepper that highlights each step's node and edges.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from html import escape
from pathlib import Path

from fieldnotes.examples import RECORD_COMMAND

BEFORE = "__import__('fieldnotes.torch.graph.backward', fromlist=['install']).install()\n"
"""The runner's `before` code that records the snippet's backward passes."""
THEN = "__import__('fieldnotes.torch.graph.protocol', fromlist=['emit_steps']).emit_steps(globals())\n"
"""The runner's `then` code that prints the steps alone (no diagram): `make update-outputs`."""


def recorded_path(snippet: str) -> str:
    """snippets/grad_none/seed.py -> snippets/grad_none/seed.steps.json"""
    return str(Path(snippet).with_suffix(".steps.json"))


def dumps(steps: list[dict]) -> str:
    return "[\n" + ",\n".join(json.dumps(step, ensure_ascii=False) for step in steps) + "\n]\n"


def recorded(root: Path, snippet: str) -> str | None:
    path = root / recorded_path(snippet)
    return path.read_text(encoding="utf-8") if path.exists() else None


def record(root: Path, snippet: str, steps: list[dict]) -> bool:
    """Store the steps as the expected ones; True if that changed the file."""
    text = dumps(steps)
    if text == recorded(root, snippet):
        return False
    (root / recorded_path(snippet)).write_text(text, encoding="utf-8")
    return True


def drift(root: Path, snippet: str, steps: list[dict] | None, record_command: str = RECORD_COMMAND) -> str | None:
    """What differs between these steps and the recorded ones, as a message with a unified diff; or None."""
    command = record_command.replace("{snippet}", snippet)
    path = recorded_path(snippet)
    expected = recorded(root, snippet)
    text = dumps(steps) if steps else None
    if text == expected:
        return None
    if expected is None:
        return f"{snippet} has no recorded backward pass ({path} is missing). Record it with: {command}"
    if text is None:
        return f"{snippet} ran no backward pass, but {path} records one. Record again with: {command}"
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        text.splitlines(keepends=True),
        fromfile=f"{path} (recorded)",
        tofile=f"{snippet} (this run's backward pass)",
    )
    body = "".join(f"    {line}" for line in diff).rstrip("\n")
    return (
        f"the backward pass of {snippet} ran differently from its recorded steps:\n{body}\n"
        f"If that is intended (an edited snippet, a torch upgrade), record it again with: {command}, "
        f"and review the diff of {path}."
    )


def render(steps: list[dict], boxes: Mapping[str, str]) -> str:
    """The steps as an ordered list; each item names the box and edges it highlights."""
    items = []
    for step in steps:
        attrs = ""
        if step.get("node") in boxes:
            attrs += f' data-node="{boxes[step["node"]]}"'
        edges = []
        for source, target in step.get("edges", []):
            drawn = (boxes.get(source), boxes.get(target))
            if None not in drawn and drawn[0] != drawn[1] and ">".join(drawn) not in edges:
                edges.append(">".join(drawn))
        if edges:
            attrs += f' data-edges="{" ".join(edges)}"'
        items.append(f"<li{attrs}>{escape(step['text'])}</li>")
    return '<ol class="ag-steps" data-search-exclude>\n' + "\n".join(items) + "\n</ol>"


def diagram_snippets(root: Path) -> list[str]:
    """Every snippet an ```autograd-graph fence of the site draws, in the pages' order, once each."""
    from fieldnotes import blocks
    from fieldnotes.config import docs_dir
    from fieldnotes.torch.graph_fence import FenceError, parse

    found: dict[str, None] = {}
    for page in sorted((root / docs_dir(root)).rglob("*.md")):
        for body in blocks.parse(page.read_text(encoding="utf-8")).diagrams:
            try:
                found.setdefault(parse(body, root).snippet, None)
            except FenceError:  # the page's build reports it
                continue
    return list(found)


def run_steps(root: Path, snippets: list[str]) -> dict:
    """Each snippet run with its backward pass recorded: snippet -> its steps (None if it ran no
    backward pass), or the run (`runner.Run`) or timeout that failed."""
    from fieldnotes import runner
    from fieldnotes.batch import time_limits
    from fieldnotes.config import project_config
    from fieldnotes.jobs import Scheduler, preload
    from fieldnotes.torch.graph.protocol import extract_steps

    config = project_config(root)
    limits = time_limits(root)
    scheduler = Scheduler(root, preload=preload(root, config.torch))
    futures = {
        s: scheduler.submit(s, limits.get(s, config.timeout), then=THEN, before=BEFORE) for s in snippets
    }
    scheduler.close()
    results: dict = {}
    for snippet, future in futures.items():
        try:
            run = future.result()
        except runner.SnippetTimeout as timeout:
            results[snippet] = timeout
            continue
        results[snippet] = run if run.exit_code else extract_steps(run.output)
    return results
