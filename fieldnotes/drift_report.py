"""What another torch changes, before upgrading to it: `make drift-report TORCH=2.14.1` (or a wheel's path).

It installs that torch, with the rest of requirements.lock, into an environment of its own (under
`.cache/drift-report/`, or `--env DIR`; never `.venv`), runs every example (the rules check,
snippets/rules/rules.py, is one) and the exercise under it, and compares each output with its
reference. It writes nothing into snippets/ or docs/: it prints a report, writes it as JSON
(`--json`, by default beside the environment), and exits 1 when anything drifts.

References: an example's is its recorded output (snippets/**/*.out). The exercise has no recorded
output (mkdocs-jupyter executes it at build time), so its reference is what it prints as a script,
`python docs/exercise/vanishing_gradients.py`, under the pinned torch in the current environment, run
in the same report.

Each drift is classified: `source-location` when the outputs differ only in torch's own C++ source
locations (`(Triggered internally at .../TensorBody.h:493.)`), which say nothing about behaviour;
`behaviour` otherwise, with what changed: a message, a number, a `grad_fn` name, a warning added or
gone, an exception raised or gone.

The JSON keeps, for each example, the digest of its code (`content_key`) and what it printed, so the
site's versions page (fieldnotes.versions) compares it with the recorded output at build time, and
says "not run under X since it changed" for an example whose code changed since.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

EXERCISE = "docs/exercise/vanishing_gradients.py"
ENVS_DIR = ".cache/drift-report"
LOCK_FILE = "requirements.lock"
EXERCISE_TIMEOUT = 300.0

# torch's C++ source file and line, as its warnings name them: ".../TensorBody.h:493".
_SOURCE_LOCATION = re.compile(r"[\w./\\-]*\.(?:h|hpp|c|cc|cpp|cu|cuh):\d+")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_GRAD_FN = re.compile(r"grad_fn=<(\w+)>")
_WARNING = re.compile(r"\b\w*Warning: ")


# --------------------------------------------------------------------------------------------------
# Comparing and classifying (pure: the tests call these directly)


def content_key(root: Path, snippet: str) -> str:
    """The digest of what an example runs: its file and the helpers beside it (`_*.py`)."""
    path = root / snippet
    digest = hashlib.sha256(path.read_bytes())
    for helper in sorted(path.parent.glob("_*.py")):
        digest.update(helper.name.encode() + b"\0" + helper.read_bytes())
    return digest.hexdigest()


def without_source_locations(text: str) -> str:
    return _SOURCE_LOCATION.sub("<torch source>", text)


@dataclass
class Drift:
    name: str
    verdict: str
    """"same", "source-location" or "behaviour"."""
    changes: list[str] = field(default_factory=list)
    """For a behaviour drift: what changed ("a number", "a grad_fn name", "a warning added", ...)."""
    diff: str = ""


def classify(
    name: str,
    reference: str,
    output: str,
    *,
    raised: bool = False,
    reference_raised: bool = False,
    labels: tuple[str, str] = ("reference", "other torch"),
) -> Drift:
    """How `output` (printed under the other torch) differs from `reference`; `labels` head the diff."""
    if output == reference and raised == reference_raised:
        return Drift(name, "same")
    diff = "".join(
        difflib.unified_diff(
            reference.splitlines(keepends=True),
            output.splitlines(keepends=True),
            fromfile=labels[0],
            tofile=labels[1],
        )
    )
    if without_source_locations(output) == without_source_locations(reference) and raised == reference_raised:
        return Drift(name, "source-location", diff=diff)
    return Drift(name, "behaviour", behaviour_changes(reference, output, raised, reference_raised), diff)


def behaviour_changes(reference: str, output: str, raised: bool, reference_raised: bool) -> list[str]:
    changes = []
    if raised != reference_raised:
        changes.append("an exception raised" if raised else "an exception gone")
    old_warnings = [w for w in reference.splitlines() if _WARNING.search(w)]
    new_warnings = [w for w in output.splitlines() if _WARNING.search(w)]
    if len(new_warnings) > len(old_warnings):
        changes.append("a warning added")
    if len(new_warnings) < len(old_warnings):
        changes.append("a warning gone")
    if _GRAD_FN.findall(reference) != _GRAD_FN.findall(output):
        changes.append("a grad_fn name")
    old_lines = without_source_locations(reference).splitlines()
    new_lines = without_source_locations(output).splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        for old, new in zip(old_lines[a1:a2], new_lines[b1:b2], strict=False):
            if old == new:
                continue
            if _GRAD_FN.sub("", old) == _GRAD_FN.sub("", new):
                continue  # counted above
            if _NUMBER.sub("N", old) == _NUMBER.sub("N", new):
                kind = "a number"
            else:
                kind = "a message"
            if kind not in changes:
                changes.append(kind)
    if not changes:
        changes.append("a line added or gone")
    return changes


def compare(root: Path, collected: dict, exercise_reference: dict | None) -> list[Drift]:
    """Each example's run (and the exercise's) against its reference, in the order collected."""
    drifts = []
    for snippet, run in collected["examples"].items():
        recorded_path = root / Path(snippet).with_suffix(".out")
        if run.get("timed_out"):
            drifts.append(Drift(snippet, "behaviour", ["timed out"], run["output"]))
            continue
        if not recorded_path.exists():
            drifts.append(Drift(snippet, "behaviour", ["no recorded output"], run["output"]))
            continue
        recorded = recorded_path.read_text(encoding="utf-8")
        # A recorded traceback is the example's behaviour: raising is a drift only when the record shows none.
        reference_raised = "Traceback (most recent call last):" in recorded
        raised = run["exit_code"] != 0
        labels = (f"{recorded_path.relative_to(root)} (recorded)", f"{snippet} (printed by torch {collected['torch']})")
        drifts.append(
            classify(snippet, recorded, run["output"], raised=raised, reference_raised=reference_raised, labels=labels)
        )
    exercise = collected.get("exercise")
    if exercise is not None and exercise_reference is not None:
        drifts.append(
            classify(
                EXERCISE,
                exercise_reference["output"],
                exercise["output"],
                raised=exercise["exit_code"] != 0,
                reference_raised=exercise_reference["exit_code"] != 0,
                labels=(
                    f"{EXERCISE} (under torch {exercise_reference['torch']})",
                    f"{EXERCISE} (under torch {exercise['torch']})",
                ),
            )
        )
    return drifts


def report_json(collected: dict, drifts: list[Drift], exercise_reference: dict | None) -> dict:
    verdicts = {d.name: d for d in drifts}
    examples = {}
    for snippet, run in collected["examples"].items():
        d = verdicts[snippet]
        examples[snippet] = {
            "content_key": run["content_key"],
            "verdict": d.verdict,
            "changes": d.changes,
            "exit_code": run["exit_code"],
            "output": run["output"],
            "diff": d.diff,
        }
    report = {
        "torch": collected["torch"],
        "torch_version": collected["torch_version"],
        "python": collected["python"],
        "pinned_torch": collected["pinned_torch"],
        "drifted": sum(d.verdict != "same" for d in drifts),
        "examples": examples,
    }
    if EXERCISE in verdicts:
        d = verdicts[EXERCISE]
        report["exercise"] = {
            "path": EXERCISE,
            "content_key": collected["exercise"]["content_key"],
            "reference": f"its run as a script under the pinned torch ({exercise_reference['torch']})",
            "verdict": d.verdict,
            "changes": d.changes,
            "diff": d.diff,
        }
    return report


def report_text(report: dict, drifts: list[Drift]) -> str:
    counts = {
        verdict: sum(d.verdict == verdict for d in drifts) for verdict in ("same", "source-location", "behaviour")
    }
    lines = [
        f"Drift report: torch {report['torch']} (pinned: {report['pinned_torch']}), Python {report['python']}",
        f"{len(drifts)} runs: {counts['same']} same, {counts['source-location']} differ only in torch's source "
        f"locations, {counts['behaviour']} in behaviour.",
    ]
    for d in drifts:
        if d.verdict == "same":
            continue
        what = "only torch's C++ source locations" if d.verdict == "source-location" else ", ".join(d.changes)
        lines.append(f"\n{d.verdict:15} {d.name}: {what}")
        lines += [f"    {line}" for line in d.diff.splitlines()]
    if not any(d.verdict != "same" for d in drifts):
        lines.append("Nothing drifts.")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Running (under the torch being tried: `--collect`, in the other environment)


def collect(root: Path, only: list[str] | None = None, exercise: bool = True) -> dict:
    """Run every example (and the exercise) under the torch installed here; what each printed."""
    import importlib.metadata

    from fieldnotes import runner
    from fieldnotes.examples import find_examples
    from fieldnotes.record import timeouts
    from fieldnotes.torch_pin import pinned_torch

    runner.start_server()
    examples = [e for e in find_examples(root) if not only or any(e.snippet.startswith(o) for o in only)]
    limits, default = timeouts(root)
    from concurrent.futures import ThreadPoolExecutor

    def run(example) -> dict:
        try:
            done = runner.run_snippet(root, example.snippet, limits.get(example.snippet, default))
            return {"output": done.output, "exit_code": done.exit_code}
        except runner.SnippetTimeout as timeout:
            return {"output": f"{timeout}\n{timeout.partial_output}", "exit_code": -1, "timed_out": True}

    with ThreadPoolExecutor(max_workers=runner.JOBS) as pool:
        runs = list(pool.map(run, examples))
    import torch

    collected = {
        "torch": torch.__version__,
        "torch_version": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "pinned_torch": str(pinned_torch(root)),
        "examples": {
            e.snippet: {**r, "content_key": content_key(root, e.snippet)} for e, r in zip(examples, runs, strict=True)
        },
    }
    if exercise:
        collected["exercise"] = run_exercise(root, sys.executable)
    return collected


def run_exercise(root: Path, python: str) -> dict:
    """The exercise run as a plain script (`python docs/exercise/vanishing_gradients.py`) by `python`."""
    done = subprocess.run(
        [python, "-u", EXERCISE],
        cwd=root,
        env={**os.environ, "MPLBACKEND": "Agg"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=EXERCISE_TIMEOUT,
    )
    output = done.stdout.replace(f"{root}{os.sep}", "")
    version = subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "output": output,
        "exit_code": done.returncode,
        "torch": version,
        "content_key": content_key(root, EXERCISE),
    }


# --------------------------------------------------------------------------------------------------
# The environment of the torch being tried


def torch_requirement(torch: str) -> str:
    """`2.14.1` -> `torch==2.14.1`; a wheel's path stays a path (made absolute)."""
    if torch.endswith(".whl") or os.sep in torch:
        return str(Path(torch).resolve())
    return f"torch=={torch}"


def environment_dir(root: Path, torch: str) -> Path:
    name = Path(torch).name.removesuffix(".whl") if torch.endswith(".whl") else f"torch-{torch}"
    return root / ENVS_DIR / re.sub(r"[^\w.+-]", "_", name)


def pip_settings(python: str = sys.executable) -> dict[str, str]:
    """pip's configuration as `pip config list` shows it (files and PIP_* variables): key -> value."""
    done = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True)
    settings = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        # "global.find-links" or ":env:.find-links": the variables outrank the files, and come first.
        name = key.rsplit(".", 1)[-1]
        settings.setdefault(name, value.strip().strip("'\""))
    return settings


def uv_arguments(settings: dict[str, str]) -> list[str]:
    """The options that make uv look where pip looks (uv reads no pip configuration)."""
    arguments = []
    if "index-url" in settings:
        arguments += ["--default-index", settings["index-url"]]
    for url in settings.get("extra-index-url", "").split():
        arguments += ["--index", url]
    for folder in settings.get("find-links", "").split():
        arguments += ["--find-links", folder]
    for constraints in settings.get("constraint", "").split():
        arguments += ["--constraints", constraints]
    if arguments:
        # As pip does: the best version from any index or folder (uv's default stops at the first index).
        arguments += ["--index-strategy", "unsafe-best-match"]
    return arguments


def lock_without_torch(root: Path) -> str:
    lines = (root / LOCK_FILE).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not re.match(r"torch\s*==", line)) + "\n"


def ensure_environment(root: Path, torch: str, folder: Path, uv: str) -> Path:
    """An environment with `torch` and the rest of the lock in `folder`; reused while those are unchanged."""
    python = folder / "bin" / "python"
    requirement = torch_requirement(torch)
    wanted = hashlib.sha256((requirement + "\n" + lock_without_torch(root)).encode()).hexdigest()
    stamp = folder / ".installed"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    if not python.exists():
        subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as requirements:
        requirements.write(lock_without_torch(root))
    command = [uv, "pip", "install", "--python", str(python), "-r", requirements.name, requirement]
    command += uv_arguments(pip_settings())
    print(f"installing {requirement} with the rest of {LOCK_FILE} into {folder}:\n  {shlex.join(command)}", flush=True)
    done = subprocess.run(command)
    os.unlink(requirements.name)
    if done.returncode != 0:
        raise SystemExit(
            f"could not install {requirement} into {folder} (uv's message above). Where pip is set up with a "
            "constraints file (`pip config list`), it applies here too."
        )
    stamp.write_text(wanted)
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fieldnotes.drift_report",
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
        inner = [python, "-m", "fieldnotes.drift_report", "--collect", str(runs_path), *args.only]
        if args.no_exercise:
            inner.append("--no-exercise")
        # The checkout's fieldnotes, not an installed copy: the other environment has none.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run(inner, cwd=root, env=env)
        if done.returncode != 0:
            print(f"the examples could not be run under {python}", file=sys.stderr)
            return 2
        collected = json.loads(runs_path.read_text(encoding="utf-8"))
    reference = None if args.no_exercise else run_exercise(root, sys.executable)
    drifts = compare(root, collected, reference)
    report = report_json(collected, drifts, reference)
    from fieldnotes.versions import version_sentences  # it reads these reports: imported late

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
