"""Probes of the general sentences on faq/layers-in-a-list.md. Counter-cases: each container nn.Module
registers and each it does not (list, dict, tuple), and the optimizer given nothing."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page

PAGE = "faq/layers-in-a-list.md"


def _holding(make):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = make(nn.Linear(2, 2))

    return Net()


@pytest.mark.parametrize(
    "make,registered",
    [
        (lambda layer: layer, True),
        (lambda layer: nn.ModuleList([layer]), True),
        (lambda layer: nn.ModuleDict({"a": layer}), True),
        (lambda layer: nn.Sequential(layer), True),
        (lambda layer: [layer], False),
        (lambda layer: {"a": layer}, False),
        (lambda layer: (layer,), False),
    ],
    ids=["attribute", "ModuleList", "ModuleDict", "Sequential", "list", "dict", "tuple"],
)
def test_what_nn_module_registers(make, registered):
    """Sentence: '`nn.Module` registers a layer assigned to one of its attributes (`self.head =
    nn.Linear(...)`), or kept in an `nn.ModuleList`, `nn.ModuleDict` or `nn.Sequential`; it does not look
    inside a Python list, dict or tuple.' Also: 'a checkpoint saved from it holds no weights'."""
    assert_on_page(PAGE, "it does not look inside a Python list, dict or tuple")
    net = _holding(make)
    assert (len(list(net.parameters())) == 2) is registered
    assert (len(net.state_dict()) == 2) is registered


def test_an_optimizer_given_no_parameters_raises_and_backward_still_fills_grad():
    """Sentences: 'An optimizer raises this `ValueError` when `params`, its first argument, is empty' and
    'The forward pass still uses the layers, so `backward()` still fills their weights' `.grad`'. Before:
    'when it is given no parameters at all', which one parameter group with an empty list breaks (no
    parameters, no error). Counter-cases: Adam, an empty list written out, an empty generator."""
    assert_on_page(PAGE, "An optimizer raises this `ValueError` when `params`, its first argument, is empty")
    for make in (torch.optim.SGD, torch.optim.Adam):
        for empty in ([], iter(())):
            with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
                make(empty, lr=0.1)
        assert make([{"params": []}], lr=0.1).param_groups[0]["params"] == []
    net = _holding(lambda layer: [layer])
    net.layers[0](torch.ones(1, 2)).sum().backward()
    assert net.layers[0].weight.grad is not None


def test_module_list_registers_under_the_index():
    """Sentence: '`nn.ModuleList` (or `nn.ModuleDict` for layers by name), which registers each layer it
    holds as a submodule, under its index'."""
    assert_on_page(PAGE, "which registers each layer it holds as a submodule, under its index")
    net = _holding(lambda layer: nn.ModuleList([layer, nn.Linear(2, 2)]))
    assert [name for name, _ in net.named_modules()] == ["", "layers", "layers.0", "layers.1"]
