"""torch's operator database as the probes' oracle: each entry's first float32 CPU sample.

A sentence that speaks of operations in general is tried over every entry of
`torch.testing._internal.common_methods_invocations.op_db`, not over one counter-case. It is torch's
internal test data: importing it needs `expecttest`, and a probe without it is skipped.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from unittest import mock

import pytest
import torch


def first_samples(make_input: Callable[[torch.Tensor], torch.Tensor]) -> Iterator[tuple[object, object]]:
    """(op, sample) for each op_db entry whose first float32 CPU sample has a tensor input; the sample's
    input is replaced by `make_input(input)` (a leaf, a non-leaf, a view, ...). Samples are made afresh
    for each call, with an input that requires grad."""
    pytest.importorskip("expecttest")
    from torch.testing._internal import common_utils
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.opinfo import core

    for op in op_db:
        # sample_inputs() looks for the unittest.TestCase it runs in with inspect.stack(), which
        # reads the source of every frame: slow under pytest's deep stack. A probe is no TestCase,
        # so there is nothing to find.
        with (
            mock.patch.object(common_utils, "extract_test_fn", lambda: None),
            mock.patch.object(core, "extract_test_fn", lambda: None),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            try:
                sample = next(iter(op.sample_inputs("cpu", torch.float32, requires_grad=True)))
            except (StopIteration, RuntimeError, NotImplementedError, TypeError):
                continue
        if not isinstance(sample.input, torch.Tensor) or not sample.input.is_floating_point():
            continue
        try:
            sample.input = make_input(sample.input)
        except (RuntimeError, NotImplementedError):
            continue
        yield op, sample


def call(fn, sample) -> object:
    """fn on the sample's input and arguments, warnings silenced (op_db's samples trigger many)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(sample.input, *sample.args, **sample.kwargs)


def tensors(result) -> list[torch.Tensor]:
    """The tensors among an operator's outputs."""
    outputs = result if isinstance(result, (tuple, list)) else [result]
    return [t for t in outputs if isinstance(t, torch.Tensor)]
