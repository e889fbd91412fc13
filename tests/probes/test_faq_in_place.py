"""Probes of the general sentences on faq/in-place.md: in-place on intermediates, the version counter,
the nn.init functions, detach() against .data. Counter-cases: views from unbind/split, inference
tensors, a write through .data, every public nn.init function."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn as nn

from tests.conftest import ROOT
from tests.probes._op_sweep import call, first_samples
from tests.probes._sentence import assert_on_page, prose, raises, rule_says

PAGE = "faq/in-place.md"


@pytest.mark.parametrize("split", ["unbind", "split", "split_with_sizes", "chunk"])
def test_views_from_a_function_returning_several_are_refused_at_once(split):
    """Sentence: 'a view of a tensor that requires grad returned by `unbind()`, `split()`,
    `split_with_sizes()` or `chunk()` (not by `tensor_split()`, whose views take the write)' is refused at
    the in-place line (the page said "a function that returns several" before: tensor_split and hsplit
    return several and take it).
    Counter-cases: the same write on a view from plain slicing is allowed; so is one on such a view of a
    tensor that does not require grad, or with grad mode off (reader 14: the words before, 'a view returned
    by ...', named neither)."""
    assert_on_page(PAGE, "With grad mode on, some in-place operations are refused at once")
    assert_on_page(PAGE, "a view of a tensor that\nrequires grad returned by `unbind()`, `split()`")
    a = torch.randn(2, 3, requires_grad=True)
    views = {
        "unbind": lambda t: t.unbind(),
        "split": lambda t: t.split(1),
        "split_with_sizes": lambda t: t.split_with_sizes([1, 1]),
        "chunk": lambda t: t.chunk(2),
    }
    first = views[split](a * 1)
    assert "is a view and is being modified inplace" in raises(lambda: first[0].mul_(2))
    views[split](torch.randn(2, 3))[0].mul_(2)
    with torch.no_grad():
        views[split](a * 1)[0].mul_(2)
    sliced = (a * 1)[0]
    sliced.mul_(2)
    sliced.sum().backward()
    assert a.grad is not None


@pytest.mark.parametrize("split", ["tensor_split", "hsplit"])
def test_views_from_tensor_split_take_the_write(split):
    """Sentence: '(not by `tensor_split()`, whose views take the write)'. Counter-case: hsplit, which
    returns several views too; the gradient through the written view is right."""
    assert_on_page(PAGE, "(not by\n`tensor_split()`, whose views take the write)")
    a = torch.ones(4, requires_grad=True)
    x = a * 1
    view = getattr(x, split)(2)[0]
    view.mul_(2)
    x.sum().backward()
    assert torch.equal(a.grad, torch.tensor([2.0, 2.0, 1.0, 1.0]))


def test_other_views_refused_at_the_in_place_line():
    """Sentence: 'With grad mode on, some in-place operations are refused at once, at the in-place line:
    ... a view of a leaf that requires grad, ...; and a view made under `torch.no_grad()`, written by an
    operation autograd records.' Counter-cases: the no_grad view changed under no_grad (allowed); writes autograd
    does not record, allowed with grad mode on: `logical_not_()`, and `mul_(2)` on a view of a base that
    does not require grad (both broke the words before, "changed with grad mode on"), while `mul_(w)`
    with `w` requiring grad is recorded and refused."""
    assert_on_page(
        PAGE,
        "and a view made under `torch.no_grad()`, written by an\noperation autograd records."
    )
    w = torch.ones(4, requires_grad=True)
    assert raises(lambda: w[:2].mul_(2)).startswith("a view of a leaf Variable that requires grad")
    h = w * 1
    with torch.no_grad():
        v = h[:2]
    assert "created in no_grad mode and is being modified inplace" in raises(lambda: v.mul_(2))
    with torch.no_grad():
        v.mul_(2)
        unrecorded = h[:2]
    unrecorded.logical_not_()
    plain = torch.zeros(3)
    with torch.no_grad():
        view = plain[:2]
    view.mul_(2)
    assert "created in no_grad mode" in raises(lambda: view.mul_(w[:2]))


def test_assigning_into_one_entry_gets_the_view_wording():
    """Sentence: 'Assigning into one entry of a weight, as `w[0] = 0.0` below, writes through a view of it,
    and gets its own wording of the same error'. Counter-cases: the last entry, and a row of a matrix.
    (The wider words, a mask, a list of indices and `w[:]` getting the first wording, were cut: no
    example on the page showed them.)"""
    assert_on_page(PAGE, "Assigning into one entry of a weight, as `w[0] = 0.0` below, writes through a view of it")
    view_wording = "a view of a leaf Variable that requires grad is being used in an in-place operation."
    for shape, assignment in (((3,), "w[0] = 0.0"), ((3,), "w[-1] = 0.0"), ((2, 3), "w[0] = 0.0")):
        namespace = {"w": torch.randn(*shape, requires_grad=True)}
        assert raises(lambda a=assignment, n=namespace: exec(a, n)).startswith(view_wording)


def test_the_version_counter():
    """Sentences: 'Every tensor but an inference tensor (`t.is_inference()`) has a version counter that
    each in-place write through it, or through a view of it, increments. A write through `.data` ... is
    not counted.' Before: '... each in-place write to it ...
    (a write through `.data` does not ...; nor does one through memory it shares with a NumPy array)',
    which read as the only exceptions and is not (reader 3, L9): a write through a tensor from
    `from_dlpack()` or one `set_` on its storage is not counted either (outside the new words, which speak
    of writes through the tensor or its views). Counter-cases: those, an
    in-place op under no_grad (counted too), a view's write (counted on the base); and
    `detach_()`, an in-place operation that writes nothing and is not counted (it broke "each in-place
    operation"); and, under inference_mode(), a view of a normal tensor and a tensor made in a nested
    inference_mode(False): not inference tensors, they have a counter (they broke "except one made
    under `torch.inference_mode()`")."""
    assert_on_page(PAGE, "Every tensor but an inference tensor (`t.is_inference()`) has a version counter")
    assert_on_page(
        PAGE, "has a version counter that each in-place write through it, or through a view of it, increments"
    )
    assert_on_page(PAGE, "A write through `.data` ([see below](#detach-vs-data))\nis not counted.")
    for alias in (lambda t: torch.from_dlpack(t), lambda t: torch.tensor([]).set_(t.untyped_storage(), 0, t.shape)):
        t = torch.zeros(3)
        alias(t).add_(1)
        assert t._version == 0 and torch.equal(t, torch.ones(3))
    kept = torch.zeros(3, requires_grad=True) * 1
    kept.detach_()
    assert kept._version == 0
    t = torch.zeros(3)
    t.add_(1)
    with torch.no_grad():
        t.mul_(2)
    t[1:].zero_()
    assert t._version == 3
    t.data.add_(1)
    assert t._version == 3
    with torch.inference_mode():
        inference = torch.zeros(3)
        view = t[1:]
        with torch.inference_mode(False):
            normal = torch.zeros(3)
    assert inference.is_inference()
    assert "do not track version counter" in raises(lambda: inference._version)
    for counted in (view, normal):
        assert not counted.is_inference() and isinstance(counted._version, int)


@pytest.mark.parametrize("name", [n for n in dir(nn.init) if n.endswith("_") and not n.startswith("_")])
def test_nn_init_functions_need_no_no_grad(name):
    """Sentence: 'The functions of `torch.nn.init` already work without recording, so they need no
    `no_grad()` around them'. Counter-case: every public one, on a leaf that requires grad."""
    assert_on_page(PAGE, "The functions of `torch.nn.init` already work without recording")
    w = torch.randn(4, 4, 3, requires_grad=True) if name == "dirac_" else torch.randn(4, 4, requires_grad=True)
    getattr(nn.init, name)(w, *((0.5,) if name in ("constant_", "sparse_") else ()))
    assert w.is_leaf and w.grad_fn is None


def test_detach_write_raises_and_data_write_is_silent():
    """Sentences: 'Through `detach()`, the change counts against the original's version counter, so a
    backward pass that needs the old values raises' and 'The same write through `.data` is invisible to
    autograd'. Counter-cases: an operation that saves its input instead of its output (mul), written
    through each; and an add, which saves nothing: the same write through detach() raises nothing (it
    broke the words before, "so autograd notices it and `backward()` raises")."""
    assert_on_page(PAGE, "so a backward pass that needs the old values raises")
    assert_on_page(PAGE, "The same write through `.data` is invisible to autograd")
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b + 1
    b.detach().zero_()
    assert b._version == 1
    c.sum().backward()
    assert torch.equal(a.grad, torch.ones(2))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * b
    b.detach().zero_()
    assert "modified by an inplace operation" in raises(lambda: c.sum().backward())
    b = a * 1
    c = b * b
    b.data.zero_()
    c.sum().backward()
    assert torch.equal(a.grad, torch.zeros(2))


def test_a_leaf_that_requires_grad_changed_in_place_with_grad_mode_on():
    """Sentence: 'With grad mode on, most in-place operations on a leaf that requires grad raise this (the
    others are listed below)'. Before: 'an in-place operation ... raises this', which the page's own list
    breaks (reader 4, L7: four `logical_*_` change the leaf, 33 others raise something else).
    Counter-cases: under no_grad() and under inference_mode() (grad mode off: allowed), a leaf that does
    not require grad (allowed), and 'most' over op_db's in-place operators: more than half of those that
    run on a leaf of their sample raise it. The others are the snippet's list, probed below."""
    assert_on_page(PAGE, "With grad mode on, most in-place operations on a leaf that requires grad raise this")
    assert_on_page(PAGE, "(the others are listed below)")
    tried = leaf_error = 0
    for op, sample in first_samples(lambda t: t):
        if op.inplace_variant is None or not sample.input.requires_grad:
            continue
        tried += 1
        try:
            call(op.inplace_variant, sample)
        except Exception as error:  # the leaf error, or another
            leaf_error += str(error).startswith("a leaf Variable that requires grad")
    assert tried > 100 and leaf_error > tried / 2, (tried, leaf_error)
    w = torch.ones(2, requires_grad=True)
    assert raises(lambda: w.mul_(2)).startswith("a leaf Variable that requires grad")
    with torch.no_grad():
        w.mul_(2)
    with torch.inference_mode():
        w.mul_(2)
    torch.ones(2).mul_(2)
    assert w.is_leaf and torch.equal(w.detach(), torch.full((2,), 4.0))


def _listed(heading: str) -> set[str]:
    """The method names leaf_inplace_methods.out prints under `heading`."""
    lines = (ROOT / "snippets/faq/leaf_inplace_methods.out").read_text(encoding="utf-8").splitlines()
    start = lines.index(heading) + 1
    names = set()
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        names.add(line.split()[0])
    return names


def test_in_place_operators_of_op_db_that_change_a_leaf_without_the_error_are_listed():
    """Sentence: 'Not every in-place method raises it. The build tries each in-place method of
    `torch.Tensor` on such a leaf', and the snippet's list under 'change the leaf, no error:'. Oracle:
    torch's operator database, not the snippet: every in-place variant of an op_db entry, on its first
    float32 sample as a leaf that requires grad, with grad mode on. One that changes the leaf without
    the leaf error must be in the printed list (the words before, 'torch raises this when a leaf that
    requires grad is changed in place with grad mode on', were broken by `logical_not_`). Deleting a
    name from the .out makes this fail."""
    assert_on_page(PAGE, "Not every in-place method raises it.")
    listed = _listed("change the leaf, no error:")
    silent = set()
    checked = 0
    for op, sample in first_samples(lambda t: t):
        if op.inplace_variant is None:
            continue
        leaf = sample.input
        if not leaf.requires_grad:  # the samples of random and dropout operators
            continue
        checked += 1
        before = leaf._version
        try:
            call(op.inplace_variant, sample)
        except Exception:  # the leaf error, or another: not a silent change
            continue
        if leaf._version != before:
            silent.add(op.name.split(".")[-1] + "_")
    assert checked > 100, checked
    assert silent, "no op_db operator changed a leaf silently: the page's list and words need a look"
    missing = silent - listed
    if missing:
        pytest.fail(f"op_db in-place operators change a leaf without the error, not listed: {missing}", pytrace=False)


def test_resize_of_a_tensor_that_requires_grad_is_refused_at_once():
    """Sentence: 'Some in-place operations are refused at once, at the in-place line: `resize_()` of any
    tensor that requires grad, outside inference mode'. Counter-cases: a leaf and an intermediate, resized
    to their own shape, with grad mode on and under no_grad(); a tensor that does not require grad takes
    it. Before: without
    'outside inference mode', which `inference_mode()` breaks (reader 4, L6: the leaf takes it there).
    (The words before that said only views were refused at once.)"""
    assert_on_page(
        PAGE,
        "With grad mode on, some in-place operations are refused at once, at the in-place line: `resize_()` of"
        " any tensor that requires grad, outside inference mode;",
    )
    with torch.inference_mode():
        torch.ones(3, requires_grad=True).resize_(4)
    with torch.no_grad():
        refused = raises(lambda: torch.ones(3, requires_grad=True).resize_(3))
    assert refused == "cannot resize variables that require grad"
    w = torch.ones(3, requires_grad=True)
    for tensor in (w, w * 2):
        assert raises(lambda t=tensor: t.resize_(3)) == "cannot resize variables that require grad"
    torch.ones(3).resize_(4)


def _refused_at_once(op, sample) -> str | None:
    """The message of an autograd error the in-place variant raises at once on the sample, else None."""
    try:
        call(op.inplace_variant, sample)
    except Exception as error:
        message = str(error)
        if "grad" in message or "view" in message or "inplace" in message:
            return message
    return None


def test_op_db_in_place_operators_on_an_intermediate_run_or_resize_refuses():
    """Sentences: 'Some in-place operations are refused at once, at the in-place line: `resize_()` of any
    tensor that requires grad; ...' and 'each in-place write to it ... increments' the version counter. Oracle:
    every in-place variant in torch's operator database, on an intermediate (`x * 1` of its first
    float32 sample): an autograd error at the in-place line from any but resize_/resize_as_, or a write
    that changes the values and leaves the version where it was, fails it. The words before ("Some
    views are refused at once") were broken by resize_."""
    assert_on_page(PAGE, "some in-place operations are refused at once, at the in-place line: `resize_()` of any")
    refused, unseen, ran = {}, [], 0
    for op, sample in first_samples(lambda t: t * 1):
        if op.inplace_variant is None:
            continue
        intermediate = sample.input
        if not intermediate.requires_grad:
            continue
        before, version = intermediate.detach().clone(), intermediate._version
        message = _refused_at_once(op, sample)
        if message is not None:
            refused[op.name] = message
        elif intermediate._version == version and not torch.equal(before, intermediate.detach()):
            unseen.append(op.name)
        else:
            ran += 1
    assert ran > 100, ran
    assert set(refused) == {"resize_", "resize_as_"}, refused
    assert set(refused.values()) == {"cannot resize variables that require grad"}
    assert not unseen, f"in-place writes the version counter did not count: {unseen}"


def test_a_write_the_backward_pass_never_needs_still_raises():
    """Cut (issue 42, reader): 'In-place operations on *intermediates* are allowed, until the backward pass
    needs the value you overwrote', false: views of one base share its version counter, so a write to
    `h[2:]` raises at `backward()` though only `h[:2]` was saved and `h[2:]` is never needed. What is
    left: 'Some in-place operations are refused at once, at the in-place line', with rule 9 quoted below
    it, whose words ('the `_version` of a tensor saved on its path changed since') the counter-case
    meets. Counter-case the other way: the same write on a separate tensor (`h2`) raises nothing."""
    assert "are allowed, until the backward pass needs the value you overwrote" not in prose(PAGE)
    assert_on_page(PAGE, "With grad mode on, some in-place operations are refused at once, at the in-place line:")
    assert_on_page(PAGE, '--8<-- "rules/rules.py:rule-9"')
    rule_says("a pass also raises if the `_version` of a tensor saved on its path changed since")
    a = torch.randn(4, requires_grad=True)
    h = a * 2
    s = h[:2]
    t = s.pow(2)  # saves s = h[:2] only
    h[2:].zero_()  # overwrites values backward never reads
    assert s._version == 1, "the write through the sibling view moved the saved view's _version"
    assert "modified by an inplace operation" in raises(lambda: t.sum().backward())
    a = torch.randn(4, requires_grad=True)
    h, h2 = a * 2, a * 3
    t = h[:2].pow(2)
    h2[2:].zero_()
    t.sum().backward()
    assert torch.equal(a.grad[2:], torch.zeros(2))


def test_without_saved_tensor_hooks_the_saved_version_is_checked():
    """Sentence: 'Without saved-tensor hooks, autograd notes the version when it saves a tensor and checks it
    when it uses it.' Before: without 'Without saved-tensor hooks', which identity hooks under
    `torch.autograd.graph.saved_tensors_hooks` break (reader 5, L5): no check, a wrong gradient.
    Counter-cases: the same write with and without the hooks; a write under no_grad() (counted, checked)."""
    assert_on_page(PAGE, "Without saved-tensor hooks, autograd notes the version when it saves a tensor and checks")
    for hooked in (False, True):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        if hooked:
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                b = a.exp()
        else:
            b = a.exp()
        with torch.no_grad():
            b.zero_()
        if hooked:
            b.sum().backward()
            assert torch.equal(a.grad, torch.zeros(2))  # exp's saved result, now zeros: wrong, and silent
        else:
            assert "modified by an inplace operation" in raises(lambda b=b: b.sum().backward())


def test_the_survey_lists_no_method_torch_refuses_with_the_leaf_error():
    """Snippet: leaf_inplace_methods.py's list under 'raise another error:', which the page shows as
    torch's behaviour. Oracle: torch's operator database, not the snippet's argument lists: an op_db
    in-place operator that raises the leaf error on its own first float32 sample must not be listed
    there, and no listed line is an argument error. The survey printed 'another error: 33' from its own
    bad arguments before (issue 42: with valid ones, 27 of those raise the leaf error); giving
    `index_add_` bad arguments again, or listing `addmm_`, makes this fail."""
    lines = (ROOT / "snippets/faq/leaf_inplace_methods.out").read_text(encoding="utf-8").splitlines()
    start = lines.index("raise another error:") + 1
    listed_lines = list(itertools.takewhile(lambda line: line.startswith("  "), lines[start:]))
    # each method's name, then its message under it
    listed = {name.strip(): error.strip() for name, error in zip(*[iter(listed_lines)] * 2, strict=True)}
    argument_errors = {n: e for n, e in listed.items() if "argument" in e or "dimension" in e}
    assert not argument_errors, f"the survey called these with arguments torch refuses: {argument_errors}"
    leaf_error = set()
    for op, sample in first_samples(lambda t: t):
        if op.inplace_variant is None or not sample.input.requires_grad:
            continue
        try:
            call(op.inplace_variant, sample)
        except Exception as error:
            if "leaf Variable that requires grad" in str(error):
                leaf_error.add(op.name.split(".")[-1] + "_")
    assert len(leaf_error) > 100, len(leaf_error)
    wrong = leaf_error & set(listed)
    assert not wrong, f"listed under another error, but torch raises the leaf error for them: {wrong}"
