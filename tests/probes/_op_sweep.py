"""torch's operator database for probes of sentences about operations in general: every op_db entry with
a floating, strided CPU sample, with that first sample. Imported once per process (op_db's import is the
cost); written apart from snippets/rules/_op_db.py, which is what these probes check."""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from tests.conftest import ROOT

OPERATORS_OUT = ROOT / "snippets" / "rules" / "operators.out"


@functools.cache
def entries() -> tuple:
    """(name, entry, sample) for each entry whose first float32 (else float64) CPU sample is floating."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db

        found = []
        for entry in op_db:
            name = entry.name + (f".{entry.variant_test_name}" if entry.variant_test_name else "")
            dtypes = [d for d in (torch.float32, torch.float64) if d in entry.supported_dtypes("cpu")]
            if not dtypes:
                continue
            torch.manual_seed(0)
            try:
                sample = next(iter(entry.sample_inputs_func(entry, "cpu", dtypes[0], False)))
            except Exception:  # an entry without a sample here
                continue
            x = sample.input
            if isinstance(x, torch.Tensor) and x.layout == torch.strided and x.is_floating_point():
                found.append((name, entry, sample))
    return tuple(found)


def fresh(value, requires_grad: bool = False):
    """A copy of a sample's input or arguments, leaves that require grad if asked (floating ones)."""
    if isinstance(value, (list, tuple)):
        return type(value)(fresh(v, requires_grad) for v in value)
    if isinstance(value, dict):
        return {k: fresh(v, requires_grad) for k, v in value.items()}
    if not isinstance(value, torch.Tensor):
        return value
    copy = value.detach().clone()
    return copy.requires_grad_() if requires_grad and copy.is_floating_point() else copy


def tensors(value) -> list:
    """The tensors in an operator's result."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors(v)]
    return []


def run(fn, sample, x, context=None):
    """fn on x and copies of the sample's other inputs, in `context`: its tensors, or None if it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with context or torch.enable_grad():
                return tensors(fn(x, *fresh(sample.args), **fresh(sample.kwargs)))
        except Exception:  # an operator refusing this input is not what is probed
            return None


@dataclass
class Sample:
    input: torch.Tensor
    args: tuple
    kwargs: dict


def first_samples(make_input: Callable[[torch.Tensor], torch.Tensor]) -> Iterator[tuple[object, Sample]]:
    """(entry, sample) for each of `entries()`: a fresh copy of its sample, each floating tensor in it a
    leaf that requires grad, and its input `make_input(that leaf)` (the leaf itself, `t * 1`, a view).
    Made afresh at each call, so a probe may write into it."""
    for _, entry, sample in entries():
        try:
            x = make_input(fresh(sample.input, requires_grad=True))
        except (RuntimeError, NotImplementedError):
            continue
        yield entry, Sample(x, fresh(tuple(sample.args), True), fresh(dict(sample.kwargs), True))


def call(fn, sample: Sample) -> object:
    """fn on the sample's input and arguments, warnings silenced (op_db's samples trigger many); what it
    raises is raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(sample.input, *sample.args, **sample.kwargs)


def recorded_list(title: str) -> set[str]:
    """The operators of one list operators.out prints (the recorded output), by the start of its title,
    their `F.` spelled out."""
    out = OPERATORS_OUT.read_text(encoding="utf-8")
    match = re.search(rf"^- {re.escape(title)}.*?\(\d+\):\n(.*?)(?=^\S|\Z)", out, re.MULTILINE | re.DOTALL)
    assert match, f"operators.out has no list '{title}'"
    names = {n.strip() for n in " ".join(match[1].split()).split(",")} - {"none"}
    return {n.replace("F.", "nn.functional.", 1) if n.startswith("F.") else n for n in names}
