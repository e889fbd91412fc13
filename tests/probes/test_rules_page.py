"""Probes of docs/rules.md's own prose (its rules are checked by snippets/rules/rules.py itself): each
general sentence, tried with the counter-case an expert would try first. Each probe quotes its sentence;
`test_every_probed_sentence_is_on_the_page` fails when a sentence changed, so its probe is looked at again."""

from __future__ import annotations

import re
import sys
import warnings

import pytest

from tests.conftest import ROOT
from tests.probes._lesson_text import NON_LEAF_WARNING, printed_by
from tests.probes._sentence import RULES_PY, raises, rule_says, sentence_marker

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
    assert f"check(RULES, programs={PROGRAMS}," in (RULES_DIR / "rules.py").read_text(encoding="utf-8")


@said("Programs are numbered 0 to 1199 and each is seeded with its number, so every build checks the same programs")
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
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
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
def test_the_programs_have_none_of_what_the_page_leaves_out(programs):
    """Counter-case: any program line naming one of them."""
    _programs, runs = programs
    code = "\n".join(_programs.render(run.lines()) for run in runs)
    for absent in ("autograd.Function", "torch.optim", "torch.compile", "cuda", "device="):
        assert absent not in code


@said(
    "A program starts with one to three leaves, made by a factory with or without `requires_grad`, by "
    "`nn.Parameter` (now and then frozen) or by `requires_grad_()`, and now and then an `nn.Linear(3, 3)`; "
    "then up to ten more lines, new leaves among them; then a loss (`out`, the sum of one or two tensors), "
    "and one or two `backward()` passes or a `torch.autograd.grad` call."
)
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
def test_a_program_s_shape(programs):
    """Counter-cases: a program that starts with something else, too many lines before its loss, a loss that
    is not a sum, a program with no pass or three (a line may come between two passes), no frozen
    `nn.Parameter` among the first leaves."""
    _programs, runs = programs
    assert any("requires_grad=False)" in run.lines()[0].code and "nn.Parameter(" in run.lines()[0].code for run in runs)
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
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
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
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
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
@pytest.mark.xdist_group("rules-programs")  # one worker makes the programs once
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


@said("Rules 1, 2 and 9 are also checked on [the operators of torch's operator database](#operators)")
def test_the_sweep_runs_the_entries_with_a_floating_cpu_sample_not_every_operator():
    """Before: 'on every operator in torch's operator database', which operators.out itself breaks: it
    runs the entries with a floating CPU sample, fewer than op_db holds."""
    out = (RULES_DIR / "operators.out").read_text(encoding="utf-8")
    match = re.search(r"op_db has (\d+)\s+entries, (\d+) of them operators with", out)
    assert match and int(match[2]) < int(match[1])


# The rules' own words, shown on this page from rules.py: probed over torch's operator database, as wide
# as the words (tests/probes/_op_sweep.py), and on the case that broke each earlier wording.
def test_rule_1_a_view_taken_with_grad_mode_off_requires_grad_when_its_base_does():
    """Rule 1: 'A view taken with grad mode off requires grad when its base does.' Before: '..., yet gets
    no gradient before its own `requires_grad_()`', true but loose (reader 5, L1): a view taken with grad
    mode on before its base's `requires_grad_()` gets none either, so the gradient clause is cut (the
    words are about leafness). Before that: '... yet no gradient ever flows into it', which
    `v.requires_grad_()` breaks. Tried on every view op_db's operators return under no_grad(), of a base
    that requires grad and of one that does not; counter-cases: the base's `requires_grad_()` after the
    view was taken, and the view's own `requires_grad_(False)` (a no-op: it still requires grad)."""
    import torch

    from tests.probes import _op_sweep

    rule_says("A view taken with grad mode off requires grad when its base does. [Exceptions]")
    b = torch.zeros(3)
    with torch.no_grad():
        late = b[:2]
    assert late.is_leaf and not late.requires_grad
    b.requires_grad_()
    assert late.is_leaf and late.requires_grad
    late.requires_grad_(False)
    assert late.requires_grad
    views = 0
    for name, entry, sample in _op_sweep.entries():
        for base_requires_grad in (True, False):
            base = _op_sweep.fresh(sample.input, base_requires_grad)
            results = _op_sweep.run(entry.op, sample, base, torch.no_grad())
            for v in [r for r in results or () if r._is_view() and r.is_floating_point() and r.numel()]:
                views += 1
                assert v.is_leaf and v.requires_grad == v._base.requires_grad, name
                if not v.requires_grad:
                    continue
                (v * 1).sum().backward()
                assert v.grad is None and v._base.grad is None, name
                v.requires_grad_()
                (v * 1).sum().backward()
                assert v.grad is not None, name
    assert views >= 100


def test_rule_1_a_recorded_floating_result_is_a_non_leaf_but_for_the_listed_operators():
    """Rule 1: 'An operation returning its input changes nothing. Outside inference mode and its tensors,
    any other floating or complex result is a non-leaf when autograd records it, which it does only with
    grad mode on and an input requiring grad.' Before, a hand-written list of exceptions, which x.cpu(),
    x.float(), atleast_1d(x) (x itself), histc(x) (a leaf) and as_tensor(x * 2) (that non-leaf itself)
    broke. Tried on every op_db entry, on a
    leaf requiring grad, grad mode on: the exceptions are the lists the page prints."""
    import torch

    from tests.probes import _op_sweep

    rule_says("An operation returning its input changes nothing. Outside inference mode and its tensors, any other")
    unrecorded = _op_sweep.recorded_list("give floating results autograd does not")
    itself = _op_sweep.recorded_list("return their input itself")
    x = torch.randn(3, requires_grad=True)
    for same in (x.cpu(), x.float(), torch.atleast_1d(x)):
        assert same is x
    assert torch.histc(x).is_leaf and not torch.histc(x).requires_grad and "histc" in unrecorded
    y = x * 2
    assert torch.as_tensor(y) is y
    for name, entry, sample in _op_sweep.entries():
        x = _op_sweep.fresh(sample.input, True)
        for r in [r for r in _op_sweep.run(entry.op, sample, x) or () if r.is_floating_point()]:
            if r is x:
                assert name in itself, name
            elif r.is_leaf:
                assert name in unrecorded and not r.requires_grad, name
            else:
                assert r.requires_grad and r.grad_fn is not None, name


def test_rule_1_a_recorded_complex_result_is_a_non_leaf():
    """Rule 1: 'Any other floating or complex result is a non-leaf when autograd records it, which it does
    only with grad mode on and an input requiring grad. Other tensors are leaves'. Before: 'floating'
    only, which a complex leaf z requiring grad breaks: z * 2 (complex) and z.abs() (floating, from no
    floating input) are non-leaves. Tried on every op_db entry's first complex64 CPU sample."""
    import warnings

    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    from tests.probes import _op_sweep

    rule_says("floating or complex result is a non-leaf when autograd records it, which it does only with grad")
    z = torch.randn(2, dtype=torch.cfloat, requires_grad=True)
    assert not (z * 2).is_leaf and not z.abs().is_leaf and z.abs().is_floating_point()
    checked = 0
    itself = _op_sweep.recorded_list("return their input itself")
    for entry in op_db:
        if torch.complex64 not in entry.supported_dtypes("cpu") or not entry.supports_autograd:
            continue
        name = entry.name + (f".{entry.variant_test_name}" if entry.variant_test_name else "")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                sample = next(iter(entry.sample_inputs_func(entry, "cpu", torch.complex64, False)))
            except Exception:  # an entry without a complex sample here
                continue
        if not (isinstance(sample.input, torch.Tensor) and sample.input.is_complex()):
            continue
        x = sample.input.detach().clone().requires_grad_()
        for r in _op_sweep.run(entry.op, sample, x) or ():
            if r is x or name in itself or not (r.is_complex() or r.is_floating_point()):
                continue
            checked += 1
            if r.is_leaf:
                # autograd did not record it: then it does not require grad either
                assert not r.requires_grad, name
    assert checked >= 300


def test_rule_9_a_write_torch_does_not_make_is_not_seen():
    """Rule 9: 'Without saved-tensor hooks, a pass also raises if the `_version` of a tensor saved on its
    path changed since.' Before: without 'Without saved-tensor hooks', which identity hooks under
    `torch.autograd.graph.saved_tensors_hooks` break (reader 5, F2): no error, and a wrong gradient. So
    does `allow_mutation_on_saved_tensors()`, which sets such hooks (no error, the right gradient).
    Before: '... was since written in place by torch (not through `.data`)', which a write through a tensor
    from `from_dlpack()` or one `set_` on the same storage breaks (reader 3, L8): torch makes the
    write, the counter does not move, and backward() computes a wrong gradient without a word. Before
    that: '... was since modified in place', which a write through NumPy breaks. Counter-cases: those
    (no error, the counter unmoved), and a write through detach() (counted: raises)."""
    import torch

    rule_says("Without saved-tensor hooks, a pass also raises if the `_version` of a tensor saved on its path")
    rule_says("its path changed since.")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        b = a.exp()
    with torch.no_grad():
        b.zero_()
    b.sum().backward()
    assert b._version == 1 and torch.equal(a.grad, torch.zeros(2))
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a.exp()
        hooked = torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
        with torch.no_grad():
            b.zero_()
        b.sum().backward()
    assert hooked and torch.allclose(a.grad, torch.tensor([1.0, 2.0]).exp())
    for alias in (lambda t: torch.from_dlpack(t), lambda t: torch.tensor([]).set_(t.untyped_storage(), 0, t.shape)):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        b = x.exp()
        alias(b.detach()).zero_()
        assert b._version == 0
        b.sum().backward()
        assert torch.equal(x.grad, torch.zeros(2))  # exp saved its result, now zeros: wrong, and silent
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    loss = (b * b).sum()
    b.detach().numpy()[:] = 0
    assert b._version == 0
    loss.backward()
    assert torch.equal(a.grad, torch.zeros(2))
    b = a * 1
    loss = (b * b).sum()
    b.detach().zero_()
    assert b._version == 1
    assert "modified by an inplace operation" in raises(loss.backward)


def test_rule_1_recording_needs_grad_mode_on_and_an_input_requiring_grad():
    """Rule 1: '... is a non-leaf when autograd records it, which it does only with grad mode on and an
    input requiring grad.' Before: '... when autograd records it: grad mode is on and an input requires
    grad', which read as what recording is, and five everyday ways to get a floating tensor from a leaf
    that requires grad, grad mode on, break (reader 8, F2): `detach()`, `.data`, `copy.deepcopy()`,
    `torch.tensor(x)` and `x.new_tensor(x)` record nothing and give leaves (none of them is an op_db
    entry, so no exception list names them). Counter-cases for 'only': every op_db entry run with grad
    mode on on inputs of which none requires grad, then on a leaf that requires grad under `no_grad()`
    and under `set_grad_enabled(False)`: every result is a leaf (or the input itself)."""
    import copy
    import warnings

    import torch

    from tests.probes import _op_sweep

    rule_says("is a non-leaf when autograd records it, which it does only with grad mode on and an input")
    rule_says("which it does only with grad mode on and an input requiring grad. Other tensors are leaves;")
    x = torch.randn(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.tensor(x) advises clone().detach()
        unrecorded = {
            "detach()": x.detach(),
            ".data": x.data,
            "copy.deepcopy()": copy.deepcopy(x),
            "torch.tensor(x)": torch.tensor(x),
            "x.new_tensor(x)": x.new_tensor(x),
        }
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    for name, t in unrecorded.items():
        assert t is not x and t.is_floating_point() and t.is_leaf and t.grad_fn is None, name
    assert unrecorded["copy.deepcopy()"].requires_grad  # a leaf that requires grad, as x did
    results = 0
    cases = ((False, torch.enable_grad), (True, torch.no_grad), (True, lambda: torch.set_grad_enabled(False)))
    for name, entry, sample in _op_sweep.entries():
        for requires_grad, context in cases:
            x = _op_sweep.fresh(sample.input, requires_grad)
            for r in _op_sweep.run(entry.op, sample, x, context()) or ():
                results += 1
                assert r is x or (r.is_leaf and r.grad_fn is None), (name, requires_grad, context)
    assert torch.is_grad_enabled() and results >= 3 * 600, results


def test_rule_1_a_parameter_requires_grad_by_default_only():
    """Rule 1: 'Other tensors are leaves; `requires_grad=True` (`nn.Parameter`'s default) makes one require
    grad.' Before: '`requires_grad=True` and `nn.Parameter` make one that requires grad',
    which a frozen parameter breaks (reader 3, L6): `nn.Parameter(t, requires_grad=False)` is a leaf that
    does not require grad. Counter-cases: that, under no_grad() too, and the default."""
    import inspect

    import torch
    from torch import nn

    rule_says("Other tensors are leaves; `requires_grad=True` (`nn.Parameter`'s default) makes one require grad.")
    assert inspect.signature(nn.Parameter).parameters["requires_grad"].default is True
    for mode in (torch.enable_grad, torch.no_grad):
        with mode():
            frozen = nn.Parameter(torch.ones(2), requires_grad=False)
            default = nn.Parameter(torch.ones(2))
        assert (frozen.is_leaf, frozen.requires_grad) == (True, False)
        assert (default.is_leaf, default.requires_grad) == (True, True)


def test_rule_1_leaves_out_inference_mode_and_its_tensors():
    """Rule 1: 'Outside inference mode and its tensors, any other floating or complex result is a non-leaf
    when autograd records it, which it does only with grad mode on and an input requiring grad.' (Until
    reader 8: '... when autograd records it: grad mode is on and an input requires grad.') Before: without 'Outside
    inference mode and its tensors', and 'a floating or complex input', which two cases break (reader 4,
    F5): `enable_grad()` inside `inference_mode()` (grad mode on, nothing recorded) and an inference tensor
    made with requires_grad=True, viewed outside inference mode (a leaf). Counter-cases: those, and that
    only floating and complex tensors can require grad (so 'an input' is the words before)."""
    import torch

    rule_says("Outside inference mode and its tensors, any other floating or complex result is a non-leaf")
    w = torch.randn(3, requires_grad=True)
    with torch.inference_mode(), torch.enable_grad():
        assert torch.is_grad_enabled() and (w * 2).is_leaf
    with torch.inference_mode():
        t = torch.ones(2, requires_grad=True)
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert t.view(2).is_leaf and not (t * 0.01).is_leaf
    for dtype in (torch.int64, torch.int32, torch.bool, torch.uint8):
        assert "floating point" in raises(lambda dtype=dtype: torch.zeros(2, dtype=dtype).requires_grad_())


def test_rule_2_a_write_makes_non_leaves_of_its_memory_s_views_if_none_was_taken_with_grad_mode_off():
    """Rule 2: 'A recorded in-place operation makes non-leaves of its target, its memory's other views and
    their base, if none was taken with grad mode off.' (Until reader 8: 'An in-place operation that
    autograd records. It makes non-leaves of its target and of the other views of its memory and their
    base, ...', and until reader 5: '... of the tensors sharing its memory as views (its base, the base's
    other views), ...', the same words, longer.) Before: without 'if none was taken
    with grad mode off', which a view taken under no_grad() breaks (reader 4, F4): after the write it is
    no non-leaf, and reading it raises; so does a view of it taken with grad mode on. Tried on every view
    op_db's operators return, with grad mode on, of a base a recorded write then changes (through the base
    and through another view): each is a non-leaf, but for the views of the operators operators.out lists
    as raising once their memory is written (chunk(), split(), unbind(): the rule's exceptions), which
    raise; and that no_grad() case."""
    import torch

    from tests.probes import _op_sweep

    rule_says("A recorded in-place operation makes non-leaves of its target, its memory's other views and their")
    rule_says("its memory's other views and their base, if none was taken with grad mode off.")
    w = torch.randn(3, requires_grad=True)
    x = torch.zeros(3)
    with torch.no_grad():
        taken_off = x[0:2]
    of_it, other = taken_off[0:1], x[1:3]
    x.add_(w)
    assert not other.is_leaf and not x.is_leaf
    for view in (taken_off, of_it):
        assert "no_grad mode" in raises(lambda view=view: view.is_leaf)
    views, unusable = 0, _op_sweep.recorded_list("give views that raise once their memory")
    assert "chunk" in unusable and "view" not in unusable
    for name, entry, sample in _op_sweep.entries():
        for through_a_view in (False, True):
            base = _op_sweep.fresh(sample.input) * 1  # a non-leaf that does not require grad: written below
            results = _op_sweep.run(entry.op, sample, base)
            made = [r for r in results or () if r._is_view() and r._base is base and r.is_floating_point()]
            if not made:
                continue
            w = torch.ones((), requires_grad=True)
            with torch.enable_grad():
                (base[...] if through_a_view else base).add_(w)
            for v in made:
                views += 1
                if name in unusable:
                    assert "view" in raises(lambda v=v: v.is_leaf), name
                    continue
                assert not v.is_leaf and v.grad_fn is not None, (name, through_a_view)
            assert not base.is_leaf
    assert views >= 100, views


def test_rules_6_and_7_a_hook_stays_with_the_node_it_was_registered_on():
    """Rule 6: 'A hook on a tensor that is not a view belongs to its `grad_fn` at registration, a leaf's
    to each graph's `AccumulateGrad`. It runs once in each pass that runs that node ...' (the leaf's part:
    the test below). Before that: 'belongs to its node at registration (its `grad_fn`, or ...)'. Before:
    'A tensor hook belongs to the node its tensor had when it was registered ...', which a view breaks
    (reader 4, F1): a hook on it, its base written in place, a second hook registered while its `grad_fn`
    is AsStridedBackward0; the pass runs that node and the second hook never runs. Registering there before
    anything read the view's `grad_fn` can crash torch 2.13.0, so that case is not run; the view cases
    below read it first. Rule 7: 'For a tensor
    that is not a view, hooks of an earlier `grad_fn` (rule 6) run after all of these.' Before (rule 7):
    'Hooks registered before an in-place operation on the tensor, and those of its old `grad_fn`, run
    after all of these', and (rule 6) 'Hooks registered before an in-place operation belong to the
    tensor's old value', which three cases break (reader 3, F4, L7): an in-place change under no_grad()
    (no new grad_fn: the earlier hook runs first), an optimizer-style step on a parameter (the same), and
    a view changed in place, or whose base is (its earlier hook never runs). Counter-cases: those, and a
    recorded change of a tensor that is not a view (the earlier hook runs last)."""
    import torch

    rule_says("A non-view tensor's hook belongs to its `grad_fn` at registration,")
    rule_says("For a non-view tensor, hooks of an earlier `grad_fn` (rule 6) run after all of these.")

    def order(make, change):
        a = torch.tensor([2.0, 3.0], requires_grad=True)
        b, ran = make(a), []
        node = b.grad_fn
        b.register_hook(lambda g: ran.append("before"))
        change(b)
        new = b.grad_fn  # read before the next registration (torch 2.13.0 crashes otherwise, for a view)
        b.register_hook(lambda g: ran.append("after"))
        (b * 5).sum().backward()
        return ran, new is node

    def no_grad(change):
        def run(t):
            with torch.no_grad():
                change(t)

        return run

    assert order(lambda a: a * 3, lambda b: b.mul_(2)) == (["after", "before"], False)
    assert order(lambda a: a * 3, no_grad(lambda b: b.mul_(2))) == (["before", "after"], True)
    assert order(lambda a: a, no_grad(lambda b: b.sub_(0.1))) == (["before", "after"], True)
    assert order(lambda a: (a * 3)[:1], lambda b: b.mul_(2)) == (["after"], False)
    assert order(lambda a: (a * 3)[:1], lambda b: b._base.mul_(2)) == (["after"], False)


def test_rule_6_a_leaf_s_hook_belongs_to_each_graph_s_accumulate_grad():
    """Rule 6: '..., a leaf's to each graph's `AccumulateGrad`. It runs once in each pass that runs that node
    or stops at it as an input, and in no other.' Before: 'belongs to its node at registration (its
    `grad_fn`, or a leaf's `AccumulateGrad`) ... and in no other', loose (reader 9, L3): the
    `AccumulateGrad` alive at registration dies with its graph, the next graph gets a new one, and the
    leaf's hook runs in passes through the new node, while a pre-hook on the old node does not
    (/tmp/reader9/p16.py, p17.py). Counter-cases: a pass through a graph made while the old one is still
    alive (the same node, the hook once), `autograd.grad` stopping at the leaf, and a pass that does not
    reach the leaf (no call)."""
    import gc

    import torch

    rule_says("a leaf's to each graph's `AccumulateGrad`.")
    x = torch.ones(2, requires_grad=True)
    ran, old_ran = [], []
    old = (x * 1).grad_fn.next_functions[0][0]
    old.metadata["registered with"] = True
    old.register_prehook(lambda g: old_ran.append(1))
    x.register_hook(lambda g: ran.append(g.clone()))
    alive = (x * 5).sum()  # a graph made while `old` lives: the same node
    assert alive.grad_fn.next_functions[0][0].next_functions[0][0] is old
    alive.backward()
    assert [g.tolist() for g in ran] == [[5.0, 5.0]] and old_ran == [1]
    del old, alive
    gc.collect()
    for k in (2.0, 3.0):
        y = x * k
        node = y.grad_fn.next_functions[0][0]
        assert type(node).__name__ == "AccumulateGrad" and "registered with" not in node.metadata
        y.sum().backward()
    (g,) = torch.autograd.grad((x * 4).sum(), [x])
    assert torch.equal(g, torch.full((2,), 4.0))
    (torch.ones(2, requires_grad=True) * 7).sum().backward()  # does not reach x
    assert [g.tolist() for g in ran] == [[5.0, 5.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]] and old_ran == [1]


def test_rule_2_operations_out_of_place_change_no_leafness_and_detach__makes_a_leaf():
    """Rule 2: 'Out-of-place operations, ... change no tensor's leafness' and '`detach_()` makes a non-leaf
    a leaf; views refuse it.' Before: without the `detach_()` sentence, loose (reader 8, L2): with rule 1,
    the words let leafness change only from leaf to non-leaf, through a recorded in-place operation, while
    `detach_()`, in place but not recorded, turns a non-leaf into a leaf (common on an RNN's hidden state).
    Earlier: 'Nothing else changes leafness', which `b.detach_()` broke; the words then said what
    `detach_()` does, and that was cut with reader 5's F1 to make room. (To fit 80 words now, 'An in-place
    operation that autograd records. It makes non-leaves of its target and of the other views of its
    memory' became 'A recorded in-place operation makes non-leaves of its target, its memory's other
    views', and 'Operations out of place' 'Out-of-place operations'.) Tried on the inputs of every op_db
    entry (their leafness unchanged by the operation), then on each result: `detach_()` makes a leaf that
    does not require grad of each non-leaf that is not a view, and raises on each view, leaf or not; a
    non-leaf base whose view stays a non-leaf. The programs have no `detach_()`: this probe backs it."""
    import torch

    from tests.probes import _op_sweep

    rule_says("Out-of-place operations, `requires_grad_()`, `retain_grad()`, hooks, `.data` and `.grad` change")
    rule_says("`detach_()` makes a non-leaf a leaf; views refuse it.")
    b = torch.randn(3, requires_grad=True) * 2
    v = b[:2]
    b.detach_()
    assert b.is_leaf and not b.requires_grad and not v.is_leaf
    assert "Can't detach views in-place" in raises(v.detach_)
    detached = refused = 0
    for name, entry, sample in _op_sweep.entries():
        for requires_grad in (True, False):
            x = _op_sweep.fresh(sample.input, requires_grad)
            before = (x.is_leaf, x.requires_grad)
            results = _op_sweep.run(entry.op, sample, x)
            assert (x.is_leaf, x.requires_grad) == before, name
            for r in [r for r in results or () if r is not x]:
                if r._is_view():
                    refused += 1
                    assert "Can't detach views in-place" in raises(r.detach_), name
                elif not r.is_leaf:
                    r.detach_()
                    detached += 1
                    assert r.is_leaf and not r.requires_grad and r.grad_fn is None, name
    assert detached >= 400 and refused >= 100, (detached, refused)


def test_rule_9_in_place_on_a_leaf_requiring_grad_or_a_view_of_one_raises():
    """Rule 9: 'An in-place operation autograd records raises on a leaf requiring grad or a view of one.'
    Tried on the in-place variant of every op_db entry that runs in place: those that do not raise are the
    ones the page lists as not recorded in place, or as raising something else."""
    import torch

    from tests.probes import _op_sweep

    rule_says("An in-place operation autograd records raises on a leaf requiring grad or a view of one.")
    not_recorded = _op_sweep.recorded_list("in place, are not recorded")
    refused = _op_sweep.recorded_list('raise "RuntimeError: cannot resize')
    checked = 0
    for name, entry, sample in _op_sweep.entries():
        inplace = entry.inplace_variant
        if inplace is None or _op_sweep.run(inplace, sample, _op_sweep.fresh(sample.input)) is None:
            continue
        for view in (False, True):
            leaf = _op_sweep.fresh(sample.input, True)
            target = leaf.view_as(leaf) if view else leaf
            message = "a view of a leaf Variable" if view else "a leaf Variable that requires grad"
            try:
                with torch.enable_grad():
                    inplace(target, *_op_sweep.fresh(sample.args), **_op_sweep.fresh(sample.kwargs))
            except RuntimeError as error:
                assert message in str(error) or name in refused, (name, str(error))
            else:
                assert name in not_recorded, name
            checked += 1
    assert checked >= 2 * 150


def test_rule_9_backward_inputs_runs_a_listed_non_leaf_s_own_grad_fn():
    """Rule 9: '`torch.autograd.grad` runs only the path from its output to its inputs;
    `backward(inputs=[b])` also runs a non-leaf `b`'s own `grad_fn`.' Before: '... an operation beyond the
    inputs is never run', which `loss.backward(inputs=[b])` breaks: it raises when b's input was written
    in place, and a second call finds b's node freed. `autograd.grad(loss, b)` raises neither."""
    import torch

    from tests.probes._sentence import raises

    rule_says("`backward(inputs=[b])` also runs a non-leaf `b`'s own `grad_fn`.")

    def graph():
        x = torch.randn(3, requires_grad=True)
        a = x * 1
        b = a.sin()  # saves a
        return a, b, (b * 2).sum()

    a, b, loss = graph()
    a.mul_(2)
    torch.autograd.grad(loss, b, retain_graph=True)
    assert "modified by an inplace operation" in raises(lambda: loss.backward(inputs=[b]))
    a, b, loss = graph()
    loss.backward(inputs=[b], retain_graph=True)
    torch.autograd.grad(loss, b)
    a, b, loss = graph()
    loss.backward(inputs=[b])
    assert "Trying to backward through the graph a second time" in raises(lambda: loss.backward(inputs=[b]))


def test_rule_8_holds_for_two_passes_in_a_row_only():
    """Rule 8: 'The same pass (without `inputs=`) run twice in a row, the first with `retain_graph=True`,
    adds the same gradient into every `.grad` again, unless a hook of yours changes it. No other tensor
    gets one.' Before: '... run twice, ...', loose (reader 13, L4 and L5): a write through `.data`
    between the passes changes what the second adds, and `retain_grad()` called between them gives that
    tensor a `.grad` on the second pass. Those two counter-cases, and the passes in a row."""
    import torch

    rule_says("The same pass (without `inputs=`) run twice in a row, the first with `retain_graph=True`,")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * a
    y = b.sum()
    y.backward(retain_graph=True)
    first = a.grad.clone()
    y.backward(retain_graph=True)
    assert torch.equal(a.grad, 2 * first) and b.grad is None  # in a row: the same again, nothing else
    a.data.mul_(2)
    y.backward(retain_graph=True)
    assert not torch.equal(a.grad - 2 * first, first)  # a write between: another gradient
    b.retain_grad()
    y.backward()
    assert b.grad is not None  # retain_grad() between: b gets one


def test_rule_8_create_graph_records_the_pass_and_warns_of_a_cycle():
    """Rule 8: '`create_graph=True` also keeps the graph, for gradients of gradients: it records
    the pass, so a `.grad` computed from tensors that require grad requires grad, and torch warns of a
    reference cycle'. Before: `create_graph=True` as another way to get retain_graph's effect, without
    the warning or the `.grad` that requires grad. Counter-case: a gradient that is a constant (x * 3)."""
    import warnings

    import torch

    rule_says("`create_graph=True` also keeps the graph, for gradients of gradients: it records the pass")
    rule_says(
        "so a `.grad` computed from tensors that require grad requires grad, and torch warns, once per process, of a"
    )
    torch.set_warn_always(True)
    try:
        for f, requires in ((lambda x: x**3, True), (lambda x: x * 3, False)):
            x = torch.tensor(2.0, requires_grad=True)
            y = f(x.exp())
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                y.backward(create_graph=True)
            assert any("reference cycle" in str(w.message) for w in caught)
            assert x.grad.requires_grad is True  # exp's gradient is computed from x
            x = torch.tensor(2.0, requires_grad=True)
            f(x).backward(create_graph=True)
            assert x.grad.requires_grad is requires
            y = f(x.exp())
            y.backward(create_graph=True)
            y.backward()  # the graph was kept
    finally:
        torch.set_warn_always(False)


@said(
    "The build runs every entry that has a floating CPU sample, on its first sample, out of place and, where "
    "the entry has one, in place."
)
def test_the_operator_check_runs_every_entry_with_a_floating_cpu_sample():
    """Counter-case: the entries of the installed torch's op_db with a floating CPU sample and an in-place
    variant, counted here, against the counts the recorded output prints."""
    from tests.probes import _op_sweep

    out = _op_sweep.OPERATORS_OUT.read_text(encoding="utf-8")
    entries = _op_sweep.entries()
    assert "of them operators with\na floating CPU sample, " in out
    counted = int(re.search(r"^entries, (\d+) of them", out, re.MULTILINE)[1])
    assert counted == len(entries)
    in_place = sum(entry.inplace_variant is not None for _, entry, _ in entries)
    assert int(re.search(r"sample, (\d+) also in place", out)[1]) <= in_place


def test_rule_2_a_view_taken_before_its_base_required_grad():
    """Rule 2: 'but a view taken, grad mode on, before its base required grad is a non-leaf once the base
    does and its `_version` has moved since.' Before: the rule stopped at 'change no tensor's leafness',
    which such a view breaks (reader 5, F1): after `b.requires_grad_()`, an unrecorded write under
    no_grad() gives it an `AsStridedBackward0`. Counter-cases: the write before `requires_grad_()` (then
    `requires_grad_()` is what changes it), through the view itself or a view of it, with grad mode on
    while the base needs no grad; no write, or a write through `.data` (the `_version` unmoved: a leaf);
    the base's `requires_grad_(False)` afterwards (still a non-leaf)."""
    import torch

    rule_says("but a view taken, grad mode on, before its base required grad is a non-leaf once the base does")
    rule_says("and its `_version` has moved since.")

    def write_after(v, b):
        with torch.no_grad():
            b.add_(1)

    cases = {
        "no_grad write after": (False, lambda v, b: write_after(v, b)),
        "write before, grad mode on": (True, lambda v, b: b.mul_(2)),
        "write through the view before": (True, lambda v, b: v.add_(1)),
        "write through a view of it before": (True, lambda v, b: v[:1].add_(1)),
    }
    for name, (before, write) in cases.items():
        b = torch.zeros(3)
        v = b[:2]
        if before:
            write(v, b)
            assert v.is_leaf, name
        b.requires_grad_()
        if not before:
            assert v.is_leaf and v.requires_grad, name
            write(v, b)
        assert v._version > 0 and not v.is_leaf and v.grad_fn.name() == "AsStridedBackward0", name
        b.requires_grad_(False)
        assert not v.is_leaf, name
    for write in (lambda b: None, lambda b: b.data.add_(1)):
        b = torch.zeros(3)
        v = b[:2]
        b.requires_grad_()
        write(b)
        assert v._version == 0 and v.is_leaf and v.requires_grad


def test_rule_5_a_hook_may_write_a_leaf_s_grad_under_autograd_grad():
    """Rule 5: 'No leaf's, unless a hook of yours writes it.' Before: 'No leaf's.', which a tensor hook that
    sets `w.grad` breaks (reader 5, L2): hooks run under `torch.autograd.grad`. Counter-case: without the
    hook, `w.grad` stays None; a `.grad` set before stays as it was."""
    import torch

    rule_says("No leaf's, unless a hook of yours writes it.")
    w = torch.ones(2, requires_grad=True)
    torch.autograd.grad((w * 3).sum(), [w])
    assert w.grad is None
    w.grad = torch.zeros(2)
    torch.autograd.grad((w * 3).sum(), [w])
    assert torch.equal(w.grad, torch.zeros(2))
    w.register_hook(lambda g: setattr(w, "grad", g.clone()))
    torch.autograd.grad((w * 3).sum(), [w])
    assert torch.equal(w.grad, torch.full((2,), 3.0))


def test_rule_5_a_retain_grad_tensor_sharing_an_input_s_grad_fn_gets_its_grad():
    """Rule 5: 'a `retain_grad()` tensor does get its `.grad` filled when a gradient flows into it and its
    `grad_fn` is one the pass runs or an input's, where the pass stops (`chunk()`'s outputs share one)'.
    Before: 'a tensor that called `retain_grad()` and lies between the output and one of the inputs (both
    ends included)', loose (issue 42, reader): with `q, k = (x * 1).chunk(2)`, `autograd.grad(loss, [q])`
    fills `k.grad`, and `k` is not between the loss and `q`. The pass does not run `SplitBackward0` (its
    node hooks stay silent): it stops there, at `q`. Counter-cases: `k` unused by the loss (no gradient
    flows into it: None), `k` without `retain_grad()` (None), the leaf `x` (None), and a `retain_grad()`
    tensor beyond the input (`h` behind `q`: its `grad_fn` neither runs nor is an input's: None)."""
    import torch

    rule_says("its `grad_fn` is one the pass runs or an input's, where the pass stops (`chunk()`'s outputs share one)")
    assert "lies between the output and one of the inputs" not in (ROOT / RULES_PY).read_text(encoding="utf-8")
    for retain, uses_k, expected in ((True, True, True), (True, False, False), (False, True, False)):
        x = torch.ones(4, requires_grad=True)
        h = x * 1
        h.retain_grad()
        q, k = (h * 1).chunk(2)
        if retain:
            k.retain_grad()
        ran = []
        q.grad_fn.register_prehook(lambda g, ran=ran: ran.append("pre-hook"))
        q.grad_fn.register_hook(lambda gi, go, ran=ran: ran.append("hook"))
        loss = q.sum() + (k * 2).sum() if uses_k else q.sum() + x.sum() * 0
        (grad,) = torch.autograd.grad(loss, [q])
        assert torch.equal(grad, torch.ones(2)) and ran == []
        assert x.grad is None and h.grad is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # k without retain_grad(): reading its .grad warns
            got = k.grad
        assert (got is not None) == expected, (retain, uses_k)
        if expected:
            assert torch.equal(got, torch.full((2,), 2.0))


def test_rule_10_retain_grad_on_a_leaf_does_nothing():
    """Rule 10: 'On a leaf that requires grad it does nothing: `retains_grad` stays False.' Before: '...,
    and a leaf that requires grad gets its `.grad` anyway', which a view taken under no_grad() of a base
    that requires grad breaks (reader 5, F3): a leaf that requires grad, it gets no `.grad`; so the clause
    is cut. Counter-cases: that view, a view taken before its base's `requires_grad_()`, a leaf made with
    `requires_grad=True`, an `nn.Parameter`: `retain_grad()` leaves each as it was."""
    import torch

    rule_says("On a leaf that requires grad it does nothing: `retains_grad` stays False. On a tensor")
    w = torch.ones(4, requires_grad=True)
    with torch.no_grad():
        off = w.view(2, 2)
    b = torch.zeros(3)
    late = b[:2]
    b.requires_grad_()
    for t in (off, late, torch.ones(2, requires_grad=True), torch.nn.Parameter(torch.ones(2))):
        before = (t.is_leaf, t.requires_grad, t.grad_fn, t._version)
        t.retain_grad()
        assert (t.is_leaf, t.requires_grad, t.grad_fn, t._version) == before and not t.retains_grad
        (t * 3).sum().backward()
    assert off.grad is None and late.grad is None


def test_rule_4_a_view_taken_with_grad_mode_off_needs_its_own_requires_grad():
    """Rule 4: 'A view taken with grad mode off reads `requires_grad=True` yet gets none unless you set that
    flag first.' Before: 'A view taken with grad mode off needs its own `requires_grad=True` first.', loose
    (reader 10, L2): such a view already reads `requires_grad=True` (and `is_leaf`), so the words look met,
    yet a pass through it fills no `.grad`, its own or its base's, and neither raises nor warns: the node
    that uses it links to nothing (/tmp/reader10/p7.py, p17.py). (Still not `requires_grad_()`, for the
    search, below; to fit 80 words, 'Every other `.grad` stays as it was, unless a hook of yours writes it'
    became 'is unchanged unless a hook writes it', and 'the' before each `retain_grad()` tensors went.)
    Before that: '... the leaves requiring grad and the `retain_grad()` tensors that a gradient flows into
    (never a view taken with grad mode off)', false (reader 8, F1): once such a view calls `requires_grad_()` (or is set
    `requires_grad = True`, though it already reads True) it is still a view of the same base, and
    backward() fills its `.grad` (/tmp/reader8/p2.py), which the site's own fix for a weight (transform it
    under no_grad(), then `requires_grad_()`) meets whenever the transform is a view. (The words say
    `requires_grad=True`, not `requires_grad_()`: with `requires_grad_` on the five pages that show rule 4,
    the site's search put leaf-vs-intermediate before faq/training-loop for 'requires_grad_(False) vs
    no_grad vs detach', tests/test_faq.py. To fit 80 words, '; no other leaf' after the `inputs=` clause
    went: 'Every other `.grad` stays as it was' says it.) Before that, without the parenthesis, true but
    loose (reader 6): such a view is a leaf that requires grad on the loss's path, and gets no `.grad`, nor
    does its base. Counter-cases: a slice, `view()` and `t()` of a leaf that requires grad, under no_grad()
    and set_grad_enabled(False), with and without retain_grad(), listed in `inputs=` or not, the flag set
    either way: no `.grad` before, one after, for a use recorded after (not for one recorded before), and
    still none for the base; the same view taken with grad mode on (a non-leaf: the base gets its
    gradient). test_rule_1_a_view_taken_with_grad_mode_off_requires_grad_when_its_base_does tries
    `requires_grad_()` on every no_grad() view op_db's operators return."""
    import torch

    rule_says(
        "A view taken with grad mode off or before its base required grad reads `requires_grad=True` yet gets"
        " none unless you set that flag first."
    )

    def set_attribute(v):
        v.requires_grad = True

    for take in (lambda b: b[:2], lambda b: b.view(-1), lambda b: b.t()):
        for off in (torch.no_grad, lambda: torch.set_grad_enabled(False)):
            for retain in (False, True):
                for listed in (False, True):
                    for flag in (lambda v: v.requires_grad_(), set_attribute):
                        base = torch.ones(2, 2, requires_grad=True)
                        with off():
                            v = take(base)
                        assert v.is_leaf and v.requires_grad
                        if retain:
                            v.retain_grad()

                        def backward(loss, v=v, listed=listed):
                            loss.backward(inputs=[v]) if listed else loss.backward()

                        early = (v * 3).sum()
                        assert (v * 2).grad_fn.next_functions == ((None, 0), (None, 0))  # links to nothing
                        with warnings.catch_warnings():
                            warnings.simplefilter("error")  # silent: no warning, no error
                            backward((v * 2).sum())
                        assert v.grad is None and base.grad is None and v.requires_grad
                        flag(v)
                        assert v.is_leaf and v._is_view() and v._base is base
                        backward(early)
                        assert v.grad is None  # a use recorded before the flag was set
                        backward((v * 2).sum())
                        assert torch.equal(v.grad, torch.full_like(v, 2.0)) and base.grad is None
        base = torch.ones(2, 2, requires_grad=True)
        (take(base) * 2).sum().backward()
        assert base.grad is not None


def test_rule_4_a_view_taken_before_its_base_required_grad_gets_none():
    """Rule 4: 'A view taken with grad mode off or before its base required grad reads `requires_grad=True`
    yet gets none unless you set that flag first.' Before: 'A view taken with grad mode off reads ...',
    false (issue 42, F2): a view taken with grad mode on before its base's `requires_grad_()` is a leaf that
    reads True, and a loss through it fills no `.grad` (its own or, for its share, the base's), runs none of
    its hooks, raises nothing, and `autograd.grad` with respect to it raises. Counter-cases: the flag set on
    the view itself first (it gets its `.grad`); the view taken after the base required grad (a non-leaf:
    the base gets its share)."""
    import torch

    rule_says("A view taken with grad mode off or before its base required grad reads `requires_grad=True`")
    w = torch.zeros(4)
    h = w[:2]
    w.requires_grad_()
    assert h.is_leaf and h.requires_grad
    ran = []
    h.register_hook(ran.append)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # lost without a warning or an error
        ((h * 3).sum() + w.sum()).backward()
    assert h.grad is None and not ran and torch.equal(w.grad, torch.ones(4))  # h's share of 3 is lost
    assert "not have been used in the graph" in raises(lambda: torch.autograd.grad((h * 3).sum() + w.sum(), h))
    w = torch.zeros(4)
    h = w[:2]
    h.requires_grad_()  # its own flag, first
    w.requires_grad_()
    (h * 3).sum().backward()
    assert torch.equal(h.grad, torch.full((2,), 3.0))
    w = torch.zeros(4, requires_grad=True)
    (w[:2] * 3).sum().backward()
    assert torch.equal(w.grad, torch.tensor([3.0, 3.0, 0.0, 0.0]))


def test_rule_4_a_listed_chunk_output_s_siblings_get_their_grad():
    """Rule 4: '`retain_grad()` tensors whose `grad_fn` the pass runs (with `inputs=`, up to a listed one's,
    which `chunk()`'s other outputs share)' and 'No other `.grad` changes unless a hook writes it.' Before:
    '`retain_grad()` tensors between the output and a listed one' and 'Every other `.grad` is unchanged
    unless a hook writes it', false (issue 42, F1): listing `b` of `b, c = (x * 1).chunk(2)` runs
    `SplitBackward0`, which `c` shares, and fills `c.grad`. Counter-cases: `c` unused by the loss (no
    gradient flows into it: None); `c` without `retain_grad()` (None); a tensor beyond the listed one
    (`x`, a leaf: None)."""
    import torch

    rule_says("whose `grad_fn` the pass runs (with `inputs=`, up to a listed one's, which `chunk()`'s other")
    rule_says("No other `.grad` changes unless a hook writes it.")
    for retain, uses_c, expected in ((True, True, True), (True, False, False), (False, True, False)):
        x = torch.ones(4, requires_grad=True)
        b, c = (x * 1).chunk(2)
        if retain:
            c.retain_grad()
        loss = b.sum() + (c * 2).sum() if uses_c else b.sum() + x.sum() * 0
        loss.backward(inputs=[b])
        assert torch.equal(b.grad, torch.ones(2)) and x.grad is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # c without retain_grad(): reading its .grad warns
            grad = c.grad
        assert (grad is not None) == expected, (retain, uses_c)
        if expected:
            assert torch.equal(grad, torch.full((2,), 2.0))


def test_rule_6_a_hook_gets_none_where_no_gradient_was_computed():
    """Rule 6: 'Each gets the gradient (or `None`) or what the hook before returned.' Before, without
    '(or `None`)', loose (reader 6): a hook on an output the loss does not use, beside one it does, gets
    None. Counter-cases: torch.var_mean's unused mean and var_mean's used var; max's values unused beside
    its indices' sibling; both outputs used (no None)."""
    import torch

    rule_says("Each gets the gradient (or `None`) or what the hook before returned.")
    x = torch.randn(4, requires_grad=True)
    var, mean = torch.var_mean(x)
    got = {}
    var.register_hook(lambda g: got.setdefault("var", g))
    mean.register_hook(lambda g: got.setdefault("mean", g))
    var.backward()
    assert got["var"] is not None and got["mean"] is None
    var, mean = torch.var_mean(x)
    got.clear()
    var.register_hook(lambda g: got.setdefault("var", g))
    mean.register_hook(lambda g: got.setdefault("mean", g))
    (var + mean).backward()
    assert got["var"] is not None and got["mean"] is not None


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        ("for step in range(3):\n    b.grad", 1),
        ("for step in range(3):\n    b.grad\n    with warnings.catch_warnings():\n        pass", 3),
        ("for step in range(3):\n    b.grad\n    warnings.simplefilter('default')", 3),
    ],
    ids=["a loop", "a loop entering catch_warnings", "a loop changing the filters"],
)
def test_rule_12_the_default_filter_shows_the_warning_once_per_line_until_the_filters_change(loop, expected):
    """Rule 12: '... shows that warning once per line of code until the warning filters change (a loop that
    reads it warns once, unless code in the loop enters `warnings.catch_warnings()`).' Before: '... once per
    line of code, however many times the line runs (a loop that reads it warns once)', loose (reader 10,
    L3): each exit from a `warnings.catch_warnings()` block, which libraries may enter, resets that memory,
    and the same line warns again (/tmp/reader10/p16.py: 3 warnings in 3 iterations), as grad-is-none and
    faq/warnings say. Counter-cases, in a fresh interpreter (pytest changes the filters): a plain loop
    (one warning), an empty catch_warnings() block in it, a simplefilter() call in it (one per iteration)."""
    rule_says("once per line of code until the warning filters change")
    rule_says("(a loop that reads it warns once, unless code in the loop enters `warnings.catch_warnings()`)")
    code = "import warnings, torch\nb = torch.tensor(2.0, requires_grad=True) * 3\n" + loop + "\n"
    assert printed_by(code).count(NON_LEAF_WARNING) == expected
