"""Probes of general comments in the snippets the pages show: a comment is a sentence a reader copies.
Counter-cases: every public in-place `torch.nn.init` function, a dozen optimizers, a parameter used twice
in one forward pass, `Module.to()` to another device and to another dtype."""

from __future__ import annotations

import torch
import torch.nn as nn

from tests.conftest import ROOT

OPTIMIZERS = [
    torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop, torch.optim.Adagrad,
    torch.optim.Adadelta, torch.optim.Adamax, torch.optim.NAdam, torch.optim.RAdam, torch.optim.ASGD,
    torch.optim.Rprop, torch.optim.LBFGS,
]  # fmt: skip


def assert_in_snippet(snippet: str, words: str) -> None:
    lines = (ROOT / "snippets" / snippet).read_text(encoding="utf-8").splitlines()
    text = " ".join(line.strip().removeprefix("# ") for line in lines)
    assert " ".join(words.split()) in text, f"snippets/{snippet} no longer says {words!r}: try the new words"


def test_nn_init_functions_do_their_own_no_grad():
    """Comment (faq/leaf_inplace_fixed.py): 'torch.nn.init functions do their own no_grad'. Counter-cases:
    every public in-place function of torch.nn.init (orthogonal_, sparse_ and dirac_ among them) on a leaf
    that requires grad, with grad mode on: none raises the in-place error, and the leaf stays a leaf."""
    assert_in_snippet("faq/leaf_inplace_fixed.py", "torch.nn.init functions do their own no_grad")
    names = sorted(n for n in dir(nn.init) if n.endswith("_") and not n.startswith("_"))
    assert len(names) >= 14
    arguments = {"constant_": (0.5,), "sparse_": (0.5,)}
    for name in names:
        shape = (3, 4, 5) if name == "dirac_" else (4, 5)  # dirac_ takes 3 to 5 dimensions
        weight = torch.empty(*shape, requires_grad=True)
        getattr(nn.init, name)(weight, *arguments.get(name, ()))
        assert weight.is_leaf and weight.grad_fn is None, name


def test_optimizer_zero_grad_sets_each_grad_to_none():
    """Comment (retain_grad/accumulates.py): 'what optimizer.zero_grad() does to each parameter it holds',
    above `a.grad = None`. Counter-case: a dozen optimizers, with their default `set_to_none`."""
    assert_in_snippet("retain_grad/accumulates.py", "what optimizer.zero_grad() does to each parameter it holds")
    for optimizer in OPTIMIZERS:
        params = [nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(2))]
        sum(p.sum() for p in params).backward()
        optimizer(params, lr=0.1).zero_grad()
        assert all(p.grad is None for p in params), optimizer.__name__


def test_a_frozen_parameter_with_an_old_grad_is_still_stepped():
    """Comment (leaves/freeze.py): 'frozen after a backward pass, a parameter keeps its old .grad, and an
    optimizer given it still steps it'. Counter-case: a dozen optimizers besides the snippet's SGD."""
    assert_in_snippet("leaves/freeze.py", "a parameter keeps its old .grad, and an optimizer given it still steps it")
    for optimizer in OPTIMIZERS:
        p = nn.Parameter(torch.ones(3))
        (p * 2).sum().backward()
        p.requires_grad_(False)
        assert p.grad is not None
        before = p.detach().clone()
        opt = optimizer([p], lr=0.1)
        opt.step((lambda: torch.tensor(0.0)) if optimizer is torch.optim.LBFGS else None)
        assert not torch.equal(before, p), optimizer.__name__


def test_a_post_accumulate_hook_runs_once_with_the_final_grad():
    """Comment (hooks/post_accumulate.py): 'runs once param.grad holds its final value for this pass'.
    Counter-case: a parameter used twice in one forward pass (two gradients to add up): the hook runs
    once, and sees their sum."""
    assert_in_snippet("hooks/post_accumulate.py", "runs once param.grad holds its final value for this pass")
    p = nn.Parameter(torch.tensor(2.0))
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    (p * 3 + p * p).backward()
    assert seen == [torch.tensor(7.0)] and torch.equal(p.grad, torch.tensor(7.0))


def test_module_to_keeps_parameters_parameters():
    """Comment (faq/parameter_to_device_fixed.py): 'Module.to() moves the parameters and keeps them
    parameters'. Counter-cases: the meta device (a new tensor for each parameter) and another dtype."""
    assert_in_snippet("faq/parameter_to_device_fixed.py", "Module.to() moves the parameters and keeps them parameters")
    for target in ("meta", torch.float64):
        model = nn.Linear(3, 2)
        model.to(target)
        for p in model.parameters():
            assert isinstance(p, nn.Parameter) and p.is_leaf and p.requires_grad
            assert p.device.type == "meta" if target == "meta" else p.dtype == torch.float64
        assert [n for n, _ in model.named_parameters()] == ["weight", "bias"]


def test_exp_and_sigmoid_save_their_result():
    """Comments (retain_grad/retain_graph_error.py, faq/two_losses.py, faq/modified_inplace.py): 'exp saves
    its result for the backward pass', 'sigmoid saves its output for the backward pass'. Counter-case:
    what the node saved is the output tensor itself (its memory), not the input."""
    assert_in_snippet("retain_grad/retain_graph_error.py", "exp saves its result for the backward pass")
    assert_in_snippet("faq/modified_inplace.py", "sigmoid saves its output for the backward pass")
    a = torch.ones(3, requires_grad=True)
    for out in (a.exp(), a.sigmoid()):
        saved = [n for n in dir(out.grad_fn) if n.startswith("_saved_")]
        assert saved == ["_saved_result"]
        assert out.grad_fn._saved_result.data_ptr() == out.data_ptr() != a.data_ptr()
