"""Probes of docs/rules.md's own prose (its rules are checked by snippets/rules/rules.py itself): each
general sentence, tried with the counter-case an expert would try first. Each probe quotes its sentence;
`test_every_probed_sentence_is_on_the_page` fails when a sentence changed, so its probe is looked at again."""

from __future__ import annotations

import re
import sys

import pytest

from tests.conftest import ROOT
from tests.probes._sentence import sentence_marker

PAGE = ROOT / "docs" / "rules.md"
RULES_DIR = ROOT / "snippets" / "rules"
PROGRAMS = 1200
SAID: dict[str, str] = {}


said = sentence_marker(SAID)  # marks a probe with the sentence of the page it tries


@pytest.fixture(scope="module")
def programs():
    """The generator, and the programs the page checks (numbered 0 to PROGRAMS - 1)."""
    sys.path.insert(0, str(RULES_DIR))
    try:
        import _programs
    finally:
        sys.path.remove(str(RULES_DIR))
    return _programs, [_programs.generate(seed) for seed in range(PROGRAMS)]


def test_every_probed_sentence_is_on_the_page():
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    missing = {name: sentence for name, sentence in SAID.items() if sentence not in text}
    assert not missing, missing


@said("the build runs every predicate against what torch does on the same 1200 small random autograd programs")
def test_the_check_runs_1200_programs():
    """Counter-case: the number rules.py actually asks for."""
    assert f"check(RULES, programs={PROGRAMS})" in (RULES_DIR / "rules.py").read_text(encoding="utf-8")


@said("Programs are numbered 0 to 1199 and each is seeded with its number, so every build checks the same programs")
def test_the_programs_are_the_same_on_every_build(programs):
    """Counter-case: a second generation of the same programs in this process, after other programs ran
    (torch's random state and the generator's must not leak from one program into the next)."""
    _programs, runs = programs
    for seed in (0, 7, 1199):
        again = _programs.generate(seed)
        assert _programs.render(again.lines()) == _programs.render(runs[seed].lines())
        assert [s.error for s in again.steps] == [s.error for s in runs[seed].steps]


@said(
    "a case made of something else (a custom `autograd.Function`, an optimizer, `torch.compile`, a GPU) is "
    "not checked here"
)
def test_the_programs_have_none_of_what_the_page_leaves_out(programs):
    """Counter-case: any program line naming one of them."""
    _programs, runs = programs
    code = "\n".join(_programs.render(run.lines()) for run in runs)
    for absent in ("autograd.Function", "torch.optim", "torch.compile", "cuda", "device="):
        assert absent not in code


@said(
    "A program starts with one to three leaves, made by a factory with or without `requires_grad`, by "
    "`nn.Parameter` or by `requires_grad_()`, and now and then an `nn.Linear(3, 3)`; then up to ten more "
    "lines, new leaves among them; then a loss (`out`, the sum of one or two tensors), and one or two "
    "`backward()` passes or a `torch.autograd.grad` call."
)
def test_a_program_s_shape(programs):
    """Counter-cases: a program that starts with something else, too many lines before its loss, a loss that
    is not a sum, a program with no pass or three (a line may come between two passes)."""
    _programs, runs = programs
    for run in runs:
        lines = run.lines()
        kinds = [line.kind for line in lines]
        assert kinds[0] == "make", kinds
        passes = [i for i, k in enumerate(kinds) if k in ("backward", "grad")]
        assert 1 <= len(passes) <= 2 and passes[-1] - passes[0] <= 2, kinds
        first = passes[0]
        if kinds[first - 1] == "out":
            assert re.fullmatch(r"out = \w+\.sum\(\)( \+ \w+\.sum\(\))?", lines[first - 1].code)
            first -= 1
        assert first <= 3 + 1 + 10, kinds


@said(
    "Tensors are of shape (2, 3) (but for what `chunk()`, `argmax()`, `nonzero()` and `topk()` return and the "
    "module's parameters), on the CPU, of dtypes float32, float64, int64 and bool."
)
def test_the_programs_tensors(programs):
    """Counter-case: any tensor a program names, at any step."""
    import torch

    _programs, runs = programs
    odd_shapes = {"chunk", "integer", "module"}
    for run in runs:
        for step in run.steps:
            for name, facts in step.after.items():
                t = facts.tensor
                assert t.device.type == "cpu"
                assert t.dtype in (torch.float32, torch.float64, torch.int64, torch.bool), (name, t.dtype)
                made = next(s for s in run.steps if name in s.after)
                if tuple(t.shape) != (2, 3):
                    assert made.line.kind in odd_shapes, (name, made.line.code, t.shape)


@said("Hooks either record what they get (`spy`) or return twice the gradient (`double`).")
def test_the_programs_hooks(programs):
    """Counter-case: a tensor hook registered with anything else."""
    _programs, runs = programs
    hooks = [line.code for run in runs for line in run.lines() if line.kind == "hook"]
    assert hooks and all(re.search(r"\.register_hook\((spy|double)\(", code) for code in hooks)


@said(
    '`holds on 1200 random programs`{ data-out="rules/rules.py" } for rules 1, 2, 9 and 12, which apply to '
    "every program, and on fewer for the others, which apply only to programs that, for instance, register "
    "a hook or call `backward()` twice (each on at least 300)."
)
def test_which_rules_apply_to_every_program():
    """Counter-case: the recorded output's count of each rule."""
    counts = [int(m[1]) for m in re.finditer(r"holds on (\d+) random programs", (RULES_DIR / "rules.out").read_text())]
    every = [number for number, count in enumerate(counts, start=1) if count == PROGRAMS]
    assert every == [1, 2, 9, 12]
    assert min(counts) >= 300


@said(
    "To shrink a failing program, lines are removed one at a time, keeping each removal after which the rule "
    "still fails."
)
def test_a_shrunk_program_loses_no_further_line(programs):
    """Counter-case: a shrunk counterexample from which one more line could go (shrinking stopped early).
    The rule is false on purpose: "a tensor computed from a leaf is never a leaf"."""
    _programs, runs = programs

    def never_a_leaf(run):
        for step in run.steps:
            line = step.line
            if line.kind == "op" and not step.error and step.before[line.inputs[0]].is_leaf:
                yield not step.after[line.target].is_leaf, line.code

    seed = next(seed for seed, run in enumerate(runs) if _programs.failures(never_a_leaf, run))
    smallest = _programs.shrink(never_a_leaf, runs[seed], seed)
    lines = smallest.lines()
    assert _programs.failures(never_a_leaf, smallest)
    for i in range(len(lines)):
        assert not _programs.failures(never_a_leaf, _programs.run_lines(lines[:i] + lines[i + 1 :], seed))
