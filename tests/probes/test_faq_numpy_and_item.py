"""Probes of the general sentences on faq/numpy-and-item.md. Counter-cases: a detached tensor and one
computed under no_grad(), a write into the array, the nodes a running total keeps."""

from __future__ import annotations

import torch
import torch.nn as nn

from tests.probes._sentence import assert_on_page, raises

PAGE = "faq/numpy-and-item.md"
MESSAGE = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."


def test_a_detached_tensor_or_one_computed_under_no_grad_converts():
    """Sentence: '`pred.detach()`, or `pred` computed under `torch.no_grad()`, does not require grad, and
    converts.' Before: '... and converts a tensor that
    does not require grad', which a bfloat16 tensor (TypeError) and a conjugated complex one (RuntimeError)
    break."""
    assert_on_page(PAGE, "`pred.detach()`, or `pred` computed under `torch.no_grad()`, does not require grad")
    raises(torch.ones(2, dtype=torch.bfloat16).numpy, TypeError)
    raises(torch.ones(2, dtype=torch.cfloat).conj().numpy)
    leaf = torch.ones(3, requires_grad=True)
    assert raises((leaf * 2).numpy) == MESSAGE
    assert (leaf * 2).detach().numpy().tolist() == [2.0, 2.0, 2.0]
    with torch.no_grad():
        quiet = leaf * 2
    assert quiet.numpy().shape == (3,)


def test_numpy_raises_on_what_requires_grad_unless_forced():
    """Sentence: 'torch raises this when `.numpy()`, without `force=True`, is called on a tensor that
    requires grad while grad mode is on.' Before: '... on a tensor that requires grad.', which
    `no_grad()` and `inference_mode()` break (reader 3, L10): there it converts. Before that: 'when
    `.numpy()` is called on a tensor that requires grad', which `w.numpy(force=True)` breaks: it detaches
    and converts. Counter-cases: those, and `enable_grad()` inside `no_grad()` (raises again)."""
    assert_on_page(
        PAGE,
        "torch raises this when `.numpy()`, without `force=True`, is called on a tensor that requires grad while"
        " grad mode is on.",
    )
    w = torch.ones(2, requires_grad=True)
    assert raises(w.numpy) == MESSAGE
    for off in (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False)):
        with off():
            assert w.numpy().tolist() == [1.0, 1.0]
    with torch.no_grad(), torch.enable_grad():
        assert raises(w.numpy) == MESSAGE
    assert w.numpy(force=True).tolist() == [1.0, 1.0]


def test_the_detached_array_shares_the_tensors_memory():
    """Sentence: '`detach()` returns a tensor that shares `pred`'s memory and is out of the graph, and
    `.numpy()` returns an array on that same memory: writing into the array changes `pred`'. Counter-case:
    a write into a `.copy()` leaves it."""
    assert_on_page(PAGE, "`.numpy()` returns an array on that same memory: writing into the array changes `pred`")
    pred = nn.Linear(3, 1)(torch.randn(4, 3))
    detached = pred.detach()
    assert not detached.requires_grad and detached.grad_fn is None
    assert detached.data_ptr() == pred.data_ptr()
    detached.numpy().copy()[0, 0] = 123.0
    assert pred[0, 0].item() != 123.0
    detached.numpy()[0, 0] = 123.0
    assert pred[0, 0].item() == 123.0


def test_a_running_total_of_losses_is_in_the_graph_and_item_is_not():
    """Sentences: '`total += loss` makes `total` a tensor in the graph: each addition is one more node,
    which holds on to that step's loss and every node that computed it' and 'add `loss.item()`, a Python
    float, which holds no graph'. Counter-case: the losses' nodes reachable from total's grad_fn."""
    assert_on_page(PAGE, "`total += loss` makes `total` a tensor in the graph: each addition is one more node")
    assert_on_page(PAGE, "add `loss.item()`, a Python float, which holds no graph")
    w = torch.ones(1, requires_grad=True)
    total, losses = 0, []
    for step in range(3):
        loss = (w * step).sum()
        losses.append(loss.grad_fn)
        total += loss
    node, adds = total.grad_fn, 0
    while node.name() == "AddBackward0":
        adds += 1
        children = [n for n, _ in node.next_functions if n is not None]
        assert losses[-adds] in children
        node = next((n for n in children if n.name() == "AddBackward0"), losses[0])
    # one node per addition, the first (0 + loss) included
    assert adds == 3 and node is losses[0]
    assert isinstance(loss.item(), float)
