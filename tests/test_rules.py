"""The rules page (docs/rules.md): the rules the lessons teach, as predicates checked against torch on random
programs by snippets/rules/rules.py, whose output the build records and drift-guards like any example."""

from __future__ import annotations

import ast
import re
import sys

import pytest

from tests.conftest import ROOT, block

RULES_DIR = ROOT / "snippets" / "rules"
HOLDS = re.compile(
    r"^rule (?P<number>\d+) \((?P<title>.+)\): holds on (?P<programs>\d+) random programs \(\d+ cases\)$"
)

# "a tensor computed from a leaf is never a leaf": false (no_grad, detach, inputs that need no grad).
WRONG_RULE = '''"""A fixture: one true rule, then a false one."""

from _programs import check


def detach_gives_a_leaf(run):
    for step in run.steps:
        if step.line.kind == "detach" and not step.error:
            yield step.after[step.line.target].is_leaf, step.line.code


def computed_from_a_leaf_is_never_a_leaf(run):
    for step in run.steps:
        line = step.line
        if line.kind in ("op", "no_grad") and not step.error and step.before[line.inputs[0]].is_leaf:
            yield not step.after[line.target].is_leaf, line.code


RULES = {"detach() gives a leaf": detach_gives_a_leaf, "never a leaf": computed_from_a_leaf_is_never_a_leaf}

if __name__ == "__main__" and not check(RULES, programs=60):
    raise SystemExit("a rule does not hold: its smallest counterexample is printed above")
'''


def rule_titles() -> list[str]:
    """The keys of RULES in rules.py, read from its syntax tree (not by running it)."""
    tree = ast.parse((RULES_DIR / "rules.py").read_text(encoding="utf-8"))
    rules = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "RULES")
    return [key.value for key in rules.keys]


def test_every_rule_is_recorded_as_holding_on_at_least_200_programs():
    """Catches a rule re-recorded while it fails (`make update-outputs` would record the counterexample), a
    rule that applies to too few programs to mean much, and a rule missing from the recorded output."""
    lines = (RULES_DIR / "rules.out").read_text(encoding="utf-8").splitlines()
    titles = rule_titles()
    assert len(lines) == len(titles) >= 9
    for number, (line, title) in enumerate(zip(lines, titles, strict=True), start=1):
        match = HOLDS.match(line)
        assert match, f"snippets/rules/rules.out line {number} is not a 'holds' line: {line}"
        assert (int(match["number"]), match["title"]) == (number, title)
        assert int(match["programs"]) >= 200, f"rule {number} was checked on only {match['programs']} programs"


def test_the_programs_mix_what_the_rules_are_about():
    """Catches a generator that stopped producing some kind of line (then a rule about it would hold
    vacuously): each construct the rules speak of appears in the programs the page checks."""
    sys.path.insert(0, str(RULES_DIR))
    try:
        import _programs
    finally:
        sys.path.remove(str(RULES_DIR))
    code = "\n".join(_programs.render(_programs.generate(seed).lines()) for seed in range(300))
    for construct in [
        "requires_grad=True)",
        ".requires_grad_()",
        "= torch.randn(2, 3)\n",
        "nn.Parameter(t",
        ".detach()",
        "with torch.no_grad():",
        ".view(-1)",
        ".reshape(",
        "[:]",
        ".transpose(",
        ".contiguous()",
        ".clone()",
        ".to(torch.float64)",
        " > 0",
        ".mul_(2)",
        ".add_(t",
        ".retain_grad()",
        ".register_hook(spy(",
        ".register_hook(double(",
        ".grad_fn.register_prehook(",
        ".grad_fn.register_hook(",
        ".register_post_accumulate_grad_hook(",
        "out.backward(retain_graph=True)\nout.backward()",
        "torch.autograd.grad(",
        ".backward(torch.ones_like(",
    ]:
        assert construct in code, f"no program of the first 300 contains {construct!r}"


@pytest.mark.xdist_group("wrong-rule")
def test_a_wrong_rule_fails_the_build_and_shows_its_smallest_counterexample(project):
    """Catches a checker that cannot fail: a false rule, recorded as holding, must fail the strict build,
    and the message must show a small program that breaks it (shrinking works), while the true rule beside
    it still holds."""
    project.snippet("rules/_programs.py", (RULES_DIR / "_programs.py").read_text(encoding="utf-8"))
    recorded = (
        "rule 1 (detach() gives a leaf): holds on 60 random programs (1 cases)\n"
        "rule 2 (never a leaf): holds on 60 random programs (1 cases)\n"
    )
    project.snippet("rules/rules.py", WRONG_RULE, recorded=recorded)
    project.page("index.md", "# Rules\n\n" + block("rules/rules.py"))
    result = project.build(timeout=300)
    assert result.returncode != 0
    log = result.stderr
    assert "snippets/rules/rules.py" in log
    assert re.search(r"\+rule 1 \(detach\(\) gives a leaf\): holds on \d+ random programs", log)
    assert "+rule 2 (never a leaf): FAILS. Smallest counterexample" in log
    shown = re.search(r"\+rule 2 \(never a leaf\): FAILS.*?\n((?:[ \t]*\+    .*\n)+)", log)
    assert shown, log
    program = [line.strip().removeprefix("+").strip() for line in shown[1].splitlines()]
    assert program[-1].startswith("broken: ")
    assert 2 <= len(program) - 1 <= 3, f"not shrunk: {program}"
    assert program[0].startswith("t") and "torch.randn(2, 3)" in program[0]
