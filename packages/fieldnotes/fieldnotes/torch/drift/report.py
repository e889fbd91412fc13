"""What another torch changes, before upgrading to it: `make drift-report TORCH=2.14.1` (or a wheel's path).

It installs that torch, with the rest of requirements.lock, into an environment of its own (under
`.cache/drift-report/`, or `--env DIR`; never `.venv`), runs every example (the rules check,
snippets/rules/rules.py, is one) and the exercise under it, and compares each output with its
reference. It writes nothing into snippets/ or docs/: it prints a report, writes it as JSON
(`--json`, by default beside the environment), and exits 1 when anything drifts.

References: an example's is its recorded output (snippets/**/*.out); the backward pass of a snippet a
diagram draws, its recorded steps (snippets/**/*.steps.json, fieldnotes.torch.steps). The exercise has no recorded
output (mkdocs-jupyter executes it at build time), so its reference is what it prints as a script,
`python docs/exercise/vanishing_gradients.py`, under the pinned torch in the current environment, run
in the same report.

Each drift is classified: `source-location` when the outputs differ only in torch's own C++ source
locations (`(Triggered internally at .../TensorBody.h:493.)`), which say nothing about behaviour;
`behaviour` otherwise, with what changed: a message, a number, a `grad_fn` name, a warning added or
gone, an exception raised or gone.

The JSON keeps, for each example, the digest of its code (`snippet_digest`, under the key `content_key`)
and what it printed, so the site's versions page (fieldnotes.torch.versions) compares it with the recorded
output at build time, and says "not run under X since it changed" for an example whose code changed since.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import fieldnotes
from fieldnotes.config import project_config
from fieldnotes.torch.drift.classify import compare, report_json, report_text, snippet_digest
from fieldnotes.torch.drift.env import ENVS_DIR, ensure_environment, environment_dir

EXERCISE_TIMEOUT = 300.0


def collect(root: Path, only: list[str] | None = None, exercise: bool = True) -> dict:
    """Run every example (and the exercise) under the torch installed here; what each printed."""
    import torch

    from fieldnotes import runner
    from fieldnotes.batch import run_examples
    from fieldnotes.examples import project_examples
    from fieldnotes.torch.pin import pinned_torch

    examples = [e for e in project_examples(root) if not only or any(e.snippet.startswith(o) for o in only)]
    runs = {}
    for snippet, done in run_examples(root, examples).items():
        if isinstance(done, runner.SnippetTimeout):
            run = {"output": f"{done}\n{done.partial_output}", "exit_code": -1, "timed_out": True}
        else:
            run = {"output": done.output, "exit_code": done.exit_code}
        runs[snippet] = {**run, "content_key": snippet_digest(root, snippet)}
    collected = {
        "torch": torch.__version__,
        "torch_version": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "pinned_torch": str(pinned_torch(root)),
        "examples": runs,
    }
    from fieldnotes.torch import steps

    diagrams = [s for s in steps.diagram_snippets(root) if not only or any(s.startswith(o) for o in only)]
    collected["steps"] = {
        snippet: steps.dumps(done) if isinstance(done, list) else f"no steps recorded: {done}"
        for snippet, done in steps.run_steps(root, diagrams).items()
    }
    notebook = exercise_notebook(root)
    if exercise and notebook:
        collected["exercise"] = run_exercise(root, notebook)
    return collected


def exercise_notebook(root: Path) -> str:
    """The notebook the report runs too (the plugin's `versions: {notebook: ...}`), if it exists; or ""."""
    notebook = project_config(root).versions.notebook
    return notebook if notebook and (root / notebook).is_file() else ""


def run_exercise(root: Path, notebook: str) -> dict:
    """The notebook run as a plain script (`python NOTEBOOK.py`) by this
    interpreter, in an empty folder (the figures it saves there must not land in the project), and the
    torch it ran under, named by its installed distribution: this process need not import torch."""
    with tempfile.TemporaryDirectory(prefix="drift-exercise-") as folder:
        done = subprocess.run(
            [sys.executable, "-u", str(root / notebook)],
            cwd=folder,
            env={**os.environ, "MPLBACKEND": "Agg"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=EXERCISE_TIMEOUT,
        )
    return {
        "output": done.stdout.replace(f"{root}{os.sep}", ""),
        "exit_code": done.returncode,
        "torch": importlib.metadata.version("torch"),
        "content_key": snippet_digest(root, notebook),
        "path": notebook,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fieldnotes.torch.drift.report",
        description=__doc__.split("\n\n")[0] + " Runs every example and the exercise under that torch, "
        "compares them with the recorded outputs, and exits 1 when anything drifts.",
    )
    parser.add_argument("--torch", help="a torch version (2.14.1, 2.14.1+cpu) or a wheel's path")
    parser.add_argument("--env", type=Path, help=f"the environment's folder (default: {ENVS_DIR}/torch-VERSION)")
    parser.add_argument("--python", help="run under this existing interpreter instead of installing a torch")
    parser.add_argument("--json", type=Path, help="where to write the report (default: ENV/drift-report.json)")
    parser.add_argument("--uv", default=str(Path(sys.executable).parent / "uv"), help="the uv that installs")
    parser.add_argument("--no-exercise", action="store_true", help="leave the exercise out")
    parser.add_argument("--collect", type=Path, help=argparse.SUPPRESS)  # the inner run, in the other environment
    parser.add_argument("only", nargs="*", help="only snippets under these paths (e.g. snippets/faq)")
    args = parser.parse_args(argv)
    root = Path.cwd()

    if args.collect:
        args.collect.write_text(json.dumps(collect(root, args.only, not args.no_exercise)), encoding="utf-8")
        return 0
    if bool(args.torch) == bool(args.python):
        parser.error("give --torch VERSION (or a wheel's path), or --python INTERPRETER")
    if args.python:
        python, folder = args.python, args.env
    else:
        folder = (args.env or environment_dir(root, args.torch)).resolve()
        if folder == (root / ".venv").resolve():
            parser.error("the drift report never installs into .venv")
        python = str(ensure_environment(root, args.torch, folder, args.uv))
    report_path = args.json or (folder / "drift-report.json" if folder else Path("drift-report.json"))

    with tempfile.TemporaryDirectory(prefix="drift-report-") as scratch:
        runs_path = Path(scratch) / "runs.json"
        inner = [python, "-m", "fieldnotes.torch.drift.report", "--collect", str(runs_path), *args.only]
        if args.no_exercise:
            inner.append("--no-exercise")
        # This fieldnotes, not an installed copy: the other environment has none.
        here = str(Path(fieldnotes.__file__).parent.parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run(inner, cwd=root, env=env)
        if done.returncode != 0:
            print(f"the examples could not be run under {python}", file=sys.stderr)
            return 2
        collected = json.loads(runs_path.read_text(encoding="utf-8"))
    notebook = exercise_notebook(root)
    reference = None if args.no_exercise or not notebook else run_exercise(root, notebook)
    drifts = compare(root, collected, reference)
    report = report_json(collected, drifts, reference)
    from fieldnotes.torch.versions import version_sentences  # it reads these reports: imported late

    sentences = version_sentences(root, collected["torch_version"])
    print(report_text(report, drifts))
    if sentences:
        print(f"\nSentences that name another torch than {collected['torch_version']}: check them after upgrading.")
        print("\n".join(f"  {path}:{line}: {text}" for path, line, text in sentences))
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"\nreport written to {report_path}")
    return 1 if report["drifted"] else 0


if __name__ == "__main__":
    sys.exit(main())
