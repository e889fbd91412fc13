"""The backward pass a snippet runs, recorded as steps with torch's own hooks; runs in the snippet's process.

`install()` runs before the snippet (the runner's `before` code). From then on, each backward pass
(`torch.autograd.backward`, which `Tensor.backward` calls) first registers, on every node of the graph it
is about to walk, a pre-hook (`Node.register_prehook`: the gradient the node receives, after the tensor
hooks) and a hook (`Node.register_hook`: the gradient it passes along each of its `next_functions`), and
on every leaf a post-accumulate-grad hook (`.grad` just written); it removes them when the pass ends.
The snippet's own tensor hooks (`register_hook`, `register_post_accumulate_grad_hook`) are wrapped as they
are registered, to note what each saw and returned, and `retain_grad()` to note which tensors keep
their gradient. None of these hooks returns anything, so the pass computes what it computes without
them, and the snippet prints what it prints without them.

`replay.steps(namespace)`, after the snippet, turns what was noted (`events`) into the steps the page
shows.

A value is shown as torch prints it when it has at most `SHORT` elements, else as its shape and its
first values, rounded to 4 significant digits; the data keeps the shape and those first values.
"""

from __future__ import annotations

import functools
import weakref

SHORT = 6
events: list[tuple] = []
"""What the hooks noted, in the order they ran, with the live tensors and nodes."""
_retained: list = []
_real: dict = {}  # torch's own functions that install() wraps


def install() -> None:
    """Record every backward pass from now on, in this process."""
    import torch

    real_backward = torch.autograd.backward
    real_register_hook = torch.Tensor.register_hook
    real_post_hook = torch.Tensor.register_post_accumulate_grad_hook
    real_retain_grad = torch.Tensor.retain_grad
    _real["register_post_accumulate_grad_hook"] = real_post_hook

    @functools.wraps(real_backward)
    def backward(tensors, grad_tensors=None, *args, **kwargs):
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        given = grad_tensors if grad_tensors is not None else [None] * len(roots)
        given = [given] if isinstance(given, torch.Tensor) else list(given)
        seeds = [torch.ones_like(r) if g is None else g for r, g in zip(roots, given, strict=False)]
        events.append(("start", roots, [_value(s) for s in seeds]))
        handles = _hook_graph(roots)
        try:
            return real_backward(tensors, grad_tensors, *args, **kwargs)
        finally:
            for handle in handles:
                handle.remove()

    @functools.wraps(real_register_hook)
    def register_hook(self, hook):
        tensor = weakref.ref(self)

        @functools.wraps(hook)
        def noted(grad):
            saw = _value(grad)
            result = hook(grad)
            events.append(("hook", tensor(), _hook_name(hook), saw, _value(result)))
            return result

        return real_register_hook(self, noted)

    @functools.wraps(real_post_hook)
    def register_post_accumulate_grad_hook(self, hook):
        @functools.wraps(hook)
        def noted(leaf):
            before = _value(leaf.grad)
            result = hook(leaf)
            events.append(("own post", leaf, _hook_name(hook), before, _value(leaf.grad)))
            return result

        return real_post_hook(self, noted)

    @functools.wraps(real_retain_grad)
    def retain_grad(self):
        if not any(self is t for t in _retained):
            _retained.append(self)
        return real_retain_grad(self)

    torch.autograd.backward = backward
    torch.Tensor.register_hook = register_hook
    torch.Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    torch.Tensor.retain_grad = retain_grad


def _hook_graph(roots) -> list:
    """Hooks on every node reachable from `roots` and on every leaf they accumulate into; their handles."""
    handles, seen = [], set()
    todo = [r.grad_fn for r in roots if r.grad_fn is not None]
    while todo:
        fn = todo.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        handles.append(fn.register_prehook(functools.partial(_received, fn)))
        handles.append(fn.register_hook(functools.partial(_passed, fn)))
        leaf = getattr(fn, "variable", None)
        if leaf is not None:
            handles.append(_real["register_post_accumulate_grad_hook"](leaf, _written))
        todo.extend(next_fn for next_fn, _ in reversed(fn.next_functions))
    return handles


def _received(fn, grad_outputs) -> None:
    kept = [(t, _value(t.grad)) for t in _retained if t.grad_fn is fn]
    leaf = getattr(fn, "variable", None)
    before = None if leaf is None or leaf.grad is None else _value(leaf.grad)
    events.append(("received", fn, [_value(g) for g in grad_outputs], kept, before))


def _passed(fn, grad_inputs, grad_outputs) -> None:
    sent = [
        (next_fn, _value(g))
        for (next_fn, _), g in zip(fn.next_functions, grad_inputs, strict=False)
        if next_fn is not None and g is not None
    ]
    events.append(("passed", fn, sent))


def _written(leaf) -> None:
    events.append(("written", leaf, _value(leaf.grad)))


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _value(t) -> dict | None:
    import torch

    if not isinstance(t, torch.Tensor):
        return None
    t = t.detach()
    flat = t.reshape(-1)
    head = [float(f"{v:.4g}") for v in flat[:SHORT].tolist()]
    if flat.numel() <= SHORT:
        text = " ".join(repr(t).split())
    else:
        shown = ", ".join(f"{v:.4g}" for v in head[:3])
        text = f"{tuple(t.shape)} tensor [{shown}, \u2026]"
    return {"shape": list(t.shape), "head": head, "text": text}
