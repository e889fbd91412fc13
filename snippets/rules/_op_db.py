"""Every entry of torch's operator database (op_db, the test data of
torch's own test suite) that has a floating CPU sample, run on its
first sample out of place and, where it has one, in place: with
grad mode on, under no_grad() and under inference_mode(), and with
its input made in each way of INPUTS. operators.py checks rules 1, 2
and 9 against what each call did.

op_db is torch's internal data, not a public API: its names and
samples change between releases. tests/test_rules.py reads the
installed torch's source for every name used here; an entry whose
sample fails to run is left out, so another torch changes the counts
and lists printed, never crashes the sweep.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass

import torch

MODES = {
    "grad mode on": contextlib.nullcontext,
    "no_grad()": torch.no_grad,
    "inference_mode()": torch.inference_mode,
}
# How the sample's tensor input is made, and whether its other
# floating tensor inputs require grad.
INPUTS = (
    "leaf",
    "leaf, other inputs requiring grad",
    "leaf requiring grad",
    "non-leaf",
    "view of a leaf requiring grad",
    "view of a leaf",
)


@dataclass(frozen=True)
class Call:
    """One call of one operator, and what torch reported."""

    op: str
    inplace: bool
    mode: str
    made: str
    error: str | None
    # grad mode on and a floating input requires grad
    recorded: bool
    # the (first floating) result is the input
    itself: bool
    # (is_leaf, requires_grad, has grad_fn, is view) of each result
    outputs: tuple
    # the input's (is_leaf, requires_grad) before, and after
    before: tuple
    after: tuple
    # out of place, grad mode on, an input that does not require
    # grad or is a non-leaf: each view result's is_leaf once a
    # recorded write changes the input ("raises" if reading raises)
    after_write: tuple = ()


def _made(how: str, t: torch.Tensor) -> torch.Tensor:
    leaf = t.detach().clone()
    if how in ("leaf", "leaf, other inputs requiring grad"):
        return leaf
    if how == "view of a leaf":
        return leaf.view_as(leaf)
    leaf.requires_grad_()
    if how == "non-leaf":
        return leaf * 1
    if how == "view of a leaf requiring grad":
        return leaf.view_as(leaf)
    return leaf


def _floating(t) -> bool:
    return (
        isinstance(t, torch.Tensor)
        and t.layout == torch.strided
        and t.is_floating_point()
    )


def _other(value, requires_grad: bool):
    """A copy of one of the sample's other inputs."""
    if isinstance(value, (list, tuple)):
        return type(value)(_other(v, requires_grad) for v in value)
    if not isinstance(value, torch.Tensor):
        return value
    copy = value.detach().clone()
    if requires_grad and _floating(copy):
        copy.requires_grad_()
    return copy


def _results(value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _results(v)]
    return []


def _inputs(sample) -> tuple:
    """INPUTS, but for "other inputs requiring grad" where the sample
    has no other floating tensor input (it would be "leaf" again)."""
    others = _results([sample.args, list(sample.kwargs.values())])
    if any(_floating(t) for t in others):
        return INPUTS
    return tuple(i for i in INPUTS if "other" not in i)


def _first_sample(entry):
    for dtype in (torch.float32, torch.float64):
        if dtype not in entry.supported_dtypes("cpu"):
            continue
        # sample_inputs() would crawl the stack for the test that
        # asks, in every call: its own generator does not
        torch.manual_seed(0)
        samples = entry.sample_inputs_func(entry, "cpu", dtype, False)
        for sample in samples:
            return sample if _floating(sample.input) else None
    return None


def _call(name, fn, inplace, sample, mode, made):
    x = _made(made, sample.input)
    others = made == "leaf, other inputs requiring grad"
    args = _other(sample.args, others)
    kwargs = {k: _other(v, others) for k, v in sample.kwargs.items()}
    given = _results([args, list(kwargs.values())])
    floats = [t for t in given if _floating(t)]
    before = (x.is_leaf, x.requires_grad)
    recorded = mode == "grad mode on" and (
        x.requires_grad or any(t.requires_grad for t in floats)
    )
    error, results = None, []
    try:
        with MODES[mode]():
            results = _results(fn(x, *args, **kwargs))
    # any refusal is recorded
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}".split("\n")[0]
    floating = [r for r in results if r.is_floating_point()]
    outputs = tuple(
        (r.is_leaf, r.requires_grad, r.grad_fn is not None, r._is_view())
        for r in floating
    )
    after = (x.is_leaf, x.requires_grad)
    after_write = ()
    # views of x's memory (broadcast_tensors also views its others)
    root = x._base if x._is_view() else x
    views = [r for r in floating if r._is_view() and r._base is root]
    if views and not inplace and mode == "grad mode on":
        after_write = _after_a_write(x, views)
    return Call(
        name,
        inplace,
        mode,
        made,
        error,
        recorded,
        bool(floating) and floating[0] is x,
        outputs,
        before,
        after,
        after_write,
    )


def _after_a_write(x, views) -> tuple:
    """Each view's is_leaf after a recorded add_() to x, or
    "raises"; () where x takes no such write (a leaf requiring
    grad, a view of one)."""
    try:
        x.add_(torch.zeros((), requires_grad=True))
    except RuntimeError:
        return ()
    facts = []
    for v in views:
        try:
            facts.append(v.is_leaf)
        except RuntimeError:
            facts.append("raises")
    return tuple(facts)


def sweep() -> tuple[int, list, list]:
    """op_db's size, the names of the entries run, every Call."""
    with warnings.catch_warnings():
        # its samples are made at import: some warn (beta, deprecated)
        warnings.simplefilter("ignore")
        from torch.testing._internal import common_methods_invocations

    op_db = common_methods_invocations.op_db

    names, calls = [], []
    for entry in op_db:
        name = entry.name
        if getattr(entry, "variant_test_name", ""):
            name += "." + entry.variant_test_name
        inplace = getattr(entry, "inplace_variant", None)
        variants = [(False, entry.op), (True, inplace)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                sample = _first_sample(entry)
            # an entry with no sample in this torch
            except Exception:
                sample = None
            if sample is None:
                continue
            names.append(name)
            for inplace, fn in variants:
                if fn is not None:
                    calls += [
                        _call(name, fn, inplace, sample, mode, made)
                        for mode in MODES
                        for made in _inputs(sample)
                    ]
    return len(op_db), names, calls
