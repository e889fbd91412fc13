"""`make mutants`: mutation testing of the modules that hold the engine's guarantees, with mutmut.

For each module in mutation/modules.toml, mutmut runs in a folder of its own under .cache/mutation/
(a copy of the package and of that module's tests, and mutmut's settings written for that module), so
each module's mutants meet exactly the tests listed for it. Every mutant that is not killed must be
written down in mutation/equivalent.toml (keyed by module, function and the mutated line, never by
mutmut's numbers, which change when the code does) with the reason it changes no behaviour.
The score goes to mutation/REPORT.md; the target fails while a survivor is unexplained.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "mutation"
WORK = ROOT / ".cache" / "mutation"
PACKAGE = "fieldnotes"
# The distribution's folder: a module's name in modules.toml is its path below it (fieldnotes/cache.py).
DISTRIBUTION = ROOT / "packages" / "fieldnotes"
# What every copy of the tests reads besides its test folder (the torch pin, the plugin's settings).
TEST_SUPPORT = ["pyproject.toml", "mkdocs.yml"]
REQUIRED_SHARE = 0.90

# mutmut's exit codes of a mutant's test run (mutmut/stats.py): a timeout or a killed test process is
# the tests stopping the mutant too.
KILLED = {"killed", "timeout", "segfault"}


@dataclass
class Mutant:
    module: str
    function: str
    name: str
    status: str
    removed: list[str]
    added: list[str]
    context: str = ""
    """The unchanged line just above the change: tells apart two mutants of like lines (two `continue`s)."""

    @property
    def text(self) -> str:
        return " / ".join(self.removed) + " -> " + " / ".join(self.added)


def main() -> int:
    global WORK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="only these modules of mutation/modules.toml")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once")
    parser.add_argument("--function", help="only this function of the (one) module: `make check`'s smoke")
    parser.add_argument("--work", type=Path, help=f"where mutmut runs (default {WORK.relative_to(ROOT)})")
    parser.add_argument(
        "--report-only", action="store_true", help="report the last run again (after editing equivalent.toml)"
    )
    args = parser.parse_args()
    if args.work:
        WORK = args.work.resolve()
    modules = tomllib.loads((HERE / "modules.toml").read_text(encoding="utf-8"))["modules"]
    equivalents = tomllib.loads((HERE / "equivalent.toml").read_text(encoding="utf-8")).get("equivalent", [])
    chosen = args.modules or list(modules)
    if args.function:
        if len(chosen) != 1:
            parser.error("--function needs exactly one module")
        modules[chosen[0]]["functions"] = [args.function]
    results = {}
    for module in chosen:
        if not args.report_only:
            mutate(module, modules[module], args.jobs)
        results[module] = outcome(module, modules[module])
    report, unexplained = write_report(results, equivalents, partial=bool(args.modules))
    print(report)
    if unexplained:
        stubs = WORK / "unexplained.toml"
        stubs.write_text("".join(stub(m) for m in unexplained), encoding="utf-8")
        print(f"Kill each with a test, or move its entry from {stubs} to mutation/equivalent.toml with its reason.")
    too_few = [module for module, mutants in results.items() if killed_share(mutants) < REQUIRED_SHARE]
    return 1 if unexplained or too_few else 0


def stub(mutant: Mutant) -> str:
    """An equivalent.toml entry for the mutant, its reason left to write."""
    lines = [
        "[[equivalent]]",
        f"module = {json.dumps(mutant.module)}",
        f"function = {json.dumps(mutant.function)}",
        f"removed = {json.dumps(mutant.removed, ensure_ascii=False)}",
        f"added = {json.dumps(mutant.added, ensure_ascii=False)}",
        f"context = {json.dumps(mutant.context, ensure_ascii=False)}",
        'reason = ""',
    ]
    return "\n".join(lines) + "\n\n"


def killed_share(mutants: list[Mutant]) -> float:
    return sum(m.status in KILLED for m in mutants) / len(mutants) if mutants else 1.0


def work_folder(module: str) -> Path:
    return WORK / module.replace("/", "-").removesuffix(".py")


def mutate(module: str, settings: dict, jobs: int) -> None:
    work = work_folder(module)
    shutil.rmtree(work, ignore_errors=True)  # mutmut reuses results it finds: start from the code as it is
    shutil.copytree(DISTRIBUTION / PACKAGE, work / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    folders = test_folders(settings["tests"])
    for folder in folders:
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in TEST_SUPPORT:
        shutil.copy2(ROOT / path, work / path)
    (work / "setup.cfg").write_text(mutmut_settings(module, settings["tests"], folders), encoding="utf-8")
    dotted = module.removesuffix(".py").replace("/", ".")
    names = [f"{dotted}.{mangled(function)}__mutmut_*" for function in settings.get("functions", [])]
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names]
    print(f"== {module}: {' '.join(settings['tests'])}", flush=True)
    (work / "commit.txt").write_text(git_commit(), encoding="utf-8")
    with open(work / "mutmut.log", "w", encoding="utf-8") as log:
        done = subprocess.run(command, cwd=work, stdout=log, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        print(f"mutmut exited {done.returncode} on {module}: see {work / 'mutmut.log'}", flush=True)


def test_folders(tests: list[str]) -> list[str]:
    """The whole test folder (the nearest one named `tests`) of each listed test: a test imports its
    conftest, which imports helpers beside it, and a copy of the listed files alone cannot say which."""
    folders = set()
    for test in tests:
        path = Path(test.split("::")[0])
        folders.add(next(parent for parent in path.parents if parent.name == "tests").as_posix())
    return sorted(folders)


def git_commit() -> str:
    """The commit the code was mutated at, with a + when the work tree had changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", str(DISTRIBUTION), "tests"], cwd=ROOT, capture_output=True
    )
    return (head.stdout.strip() or "unknown") + ("+" if dirty.stdout.strip() else "")


def outcome(module: str, settings: dict) -> list[Mutant]:
    """Each mutant of the module's last run, with the lines a survivor changes."""
    work = work_folder(module)
    meta = work / "mutants" / f"{module}.meta"
    if not meta.exists():
        sys.exit(f"mutmut has not run on {module}: see {work / 'mutmut.log'}")
    dotted = module.removesuffix(".py").replace("/", ".")
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    wanted = {mangled(function) for function in settings.get("functions", [])}
    mutants = []
    for name, code in sorted(codes.items()):
        function = name.removeprefix(dotted + ".").rsplit("__mutmut_", 1)[0]
        if wanted and function not in wanted:
            continue
        mutants.append(Mutant(module, readable(function), name, status(code), [], []))
    survivors = [mutant for mutant in mutants if mutant.status not in KILLED]
    for mutant, changed in zip(survivors, changed_lines(work, [m.name for m in survivors]), strict=True):
        mutant.removed, mutant.added, mutant.context = changed
    return mutants


def mutmut_settings(module: str, tests: list[str], folders: list[str]) -> str:
    lines = "".join(f"\n    {test}" for test in tests)
    also_copy = "".join(f"\n    {path}" for path in ["mkdocs.yml", *folders])
    # forkserver: each mutant's tests run in a process forked from one that has imported the tests but
    # run none, so the runner's own fork server starts afresh in every one (a forked one cannot reach it).
    return (
        "[mutmut]\n"
        f"source_paths = {PACKAGE}\n"
        f"only_mutate = {module}\n"
        f"also_copy ={also_copy}\n"
        f"pytest_add_cli_args_test_selection ={lines}\n"
        "pytest_add_cli_args =\n    -p\n    no:cacheprovider\n"
        "process_isolation = forkserver\n"
        # A mutant that hangs a test (a run never stopped) is killed after this many times the test's
        # usual time, not mutmut's default 15.
        "timeout_multiplier = 5\n"
        "use_git_change_detection = false\n"
    )


def mangled(function: str) -> str:
    """`Store.key` -> mutmut's `xǁStoreǁkey`; `drift` -> `x_drift`."""
    if "." in function:
        cls, method = function.split(".")
        return f"xǁ{cls}ǁ{method}"
    return f"x_{function}"


def readable(function: str) -> str:
    if function.startswith("xǁ"):
        return ".".join(function.removeprefix("xǁ").split("ǁ"))
    return function.removeprefix("x_")


def status(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    return status_by_exit_code[code]


# Run where mutmut ran (it reads its settings and mutants from there): each mutant's diff, as JSON.
SHOW_DIFFS = """import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
print(json.dumps([get_diff_for_mutant(name) for name in json.load(sys.stdin)]))
"""


def changed_lines(work: Path, names: list[str]) -> list[tuple[list[str], list[str], str]]:
    """The lines each mutant removes and adds, and the line above them, stripped: what equivalent.toml
    names it by."""
    shown = subprocess.run(
        [sys.executable, "-c", SHOW_DIFFS], cwd=work, input=json.dumps(names), capture_output=True, text=True
    )
    changed = []
    for diff in json.loads(shown.stdout):
        lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
        removed = [line[1:].strip() for line in lines if line.startswith("-")]
        added = [line[1:].strip() for line in lines if line.startswith("+")]
        first = next(n for n, line in enumerate(lines) if line.startswith(("-", "+")))
        above = [line[1:].strip() for line in lines[:first] if line.startswith(" ")]
        changed.append((removed, added, above[-1] if above else ""))
    return changed


def explanation(mutant: Mutant, equivalents: list[dict]) -> str | None:
    for entry in equivalents:
        if (entry["module"], entry["function"]) != (mutant.module, mutant.function):
            continue
        if (entry["removed"], entry["added"]) != (mutant.removed, mutant.added):
            continue
        if entry.get("context", mutant.context) == mutant.context:
            return entry["reason"]
    return None


def write_report(results: dict[str, list[Mutant]], equivalents: list[dict], partial: bool) -> tuple[str, list[Mutant]]:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Mutation score",
        "",
        f"`make mutants` on {now}, mutmut "
        f"{importlib.metadata.version('mutmut')}. A mutant is killed when a test fails under it (or times out).",
        "Each survivor is explained in mutation/equivalent.toml or is a gap in the tests.",
        "",
        "| module | at commit | mutants | killed | of which timed out | equivalent | unexplained | killed share |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    survivors = []
    unexplained = []
    for module, mutants in results.items():
        killed = sum(m.status in KILLED for m in mutants)
        timed_out = sum(m.status in KILLED - {"killed"} for m in mutants)
        explained = 0
        for mutant in mutants:
            if mutant.status in KILLED:
                continue
            reason = explanation(mutant, equivalents)
            if reason is None:
                unexplained.append(mutant)
            else:
                explained += 1
            survivors.append((mutant, reason))
        lines.append(
            f"| `{module}` | {(work_folder(module) / 'commit.txt').read_text(encoding='utf-8')} "
            f"| {len(mutants)} | {killed} | {timed_out} "
            f"| {explained} | {len(mutants) - killed - explained} "
            f"| {killed_share(mutants):.1%} |"
        )
    everything = [m for mutants in results.values() for m in mutants]
    lines.append(
        f"| all | | {len(everything)} | {sum(m.status in KILLED for m in everything)} | | | | "
        f"{killed_share(everything):.1%} |"
    )
    lines += ["", f"Required: at least {REQUIRED_SHARE:.0%} killed in each module, and no unexplained survivor."]
    lines += ["", "## Survivors", ""]
    if not survivors:
        lines.append("None.")
    for mutant, reason in survivors:
        lines.append(f"- `{mutant.module}` `{mutant.function}` ({mutant.status}): `{mutant.text}`")
        lines.append(f"  - {reason or '**unexplained**: no test kills it and equivalent.toml does not name it'}")
    report = "\n".join(lines) + "\n"
    if not partial:  # a run of some modules only is for working on them; the committed report covers all
        (HERE / "REPORT.md").write_text(report, encoding="utf-8")
    return report, unexplained


if __name__ == "__main__":
    sys.exit(main())
