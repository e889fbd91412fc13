"""The ```autograd-graph fence: a diagram of the autograd graph a snippet builds, drawn at build time.

In a page:

    ```autograd-graph
    snippet: grad_none/seed.py
    tensors: a b c
    caption: optional text; `code` in backticks
    ```

`snippet` is a path under snippets/, as `--8<--` takes it. `tensors` are variable names of the
snippet, separated by spaces or commas: tensors, or an nn.Module, which stands for all its
parameters, labelled by `named_parameters()` ("0.weight"). Two optional keys control collapsing
(see fieldnotes/graph/build.py): `max_nodes: 30` (the default) and `collapse: auto` (or none, chains,
modules, chains+modules).

The snippet runs in isolation, exactly as for its example block (through the build's scheduler,
`fieldnotes.jobs`), and the graph is built in the same process right after it from the tensors it left
behind, so a diagram always shows what the current code builds; that process prints the graph as data,
which this process lays out and draws (see fieldnotes/graph/). A drawn diagram is kept in the build's
store under a key that covers everything it depends on: the key of the snippet's run (the snippet, its
helpers, the runner, Python and every installed package), the code that draws (every module of
fieldnotes/graph/, this file) and the fence's own lines. A failure is never stored. Any problem
(unknown key or name, a missing or failing snippet, no diagram printed) is logged as a warning, which
fails the strict build, and the page shows what went wrong instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path

from mkdocs.plugins import get_plugin_logger

from fieldnotes import cache, jobs, runner
from fieldnotes.blocks import Page
from fieldnotes.cache import Store
from fieldnotes.examples import RECORD_COMMAND, snippets_dir
from fieldnotes.jobs import Scheduler
from fieldnotes.torch import graph, steps
from fieldnotes.torch.graph import protocol

log = get_plugin_logger("fieldnotes")

FENCE_NAME = "autograd-graph"
_KEYS = ("snippet", "tensors", "caption", "max_nodes", "collapse")


class FenceError(Exception):
    """The fence asks for something that cannot be drawn."""


@dataclass(frozen=True)
class Spec:
    snippet: str
    """Relative to the project root: "snippets/grad_none/seed.py"."""
    tensors: tuple[str, ...]
    caption: str = ""
    max_nodes: int = graph.DEFAULT_MAX_NODES
    collapse: str = "auto"

    @property
    def id_prefix(self) -> str:
        """Ids for the SVG's title, desc and arrowhead: unique per diagram, the same every build."""
        digest = hashlib.sha1(repr(self).encode()).hexdigest()[:10]
        return f"ag-{digest}"

    @property
    def title(self) -> str:
        return f"Autograd graph of {', '.join(self.tensors)} after {self.snippet} ran"


def parse(source: str, root: Path) -> Spec:
    """The fence's `key: value` lines; a FenceError says what is wrong."""
    values: dict[str, str] = {}
    for number, line in enumerate(source.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or key not in _KEYS:
            raise FenceError(
                f"line {number} of the fence, {line.strip()!r}, is not one of the `key: value` "
                f"lines it takes ({', '.join(_KEYS)})"
            )
        if key in values:
            raise FenceError(f"the fence gives `{key}` twice")
        values[key] = value.strip()
    for required in ("snippet", "tensors"):
        if not values.get(required):
            raise FenceError(
                f"the fence has no `{required}:` line (e.g. `snippet: topic/example.py`, `tensors: a b c`)"
            )
    snippet, folder = values["snippet"], snippets_dir(root)
    if not snippet.startswith(f"{folder}/"):
        snippet = f"{folder}/{snippet}"
    path = (root / snippet).resolve()
    if not path.is_relative_to((root / folder).resolve()) or path.suffix != ".py":
        raise FenceError(f"`snippet: {values['snippet']}` is not a .py file under {folder}/")
    if not path.is_file():
        raise FenceError(f"{snippet} does not exist")
    tensors = tuple(t for t in re.split(r"[\s,]+", values["tensors"]) if t)
    for name in tensors:
        if not name.isidentifier():
            raise FenceError(f"`tensors:` takes variable names of the snippet; {name!r} is not one")
    try:
        max_nodes = int(values.get("max_nodes", graph.DEFAULT_MAX_NODES))
    except ValueError:
        raise FenceError(f"`max_nodes: {values['max_nodes']}` is not a whole number") from None
    collapse = values.get("collapse", "auto")
    if collapse not in graph.COLLAPSE_MODES:
        raise FenceError(f"`collapse: {collapse}` is not one of {', '.join(graph.COLLAPSE_MODES)}")
    return Spec(snippet, tensors, values.get("caption", ""), max_nodes, collapse)


def then_code(spec: Spec) -> str:
    """The code run in the snippet's namespace after it: print the graph between markers."""
    request = {"tensors": list(spec.tensors), "max_nodes": spec.max_nodes, "collapse": spec.collapse}
    return f"__import__('fieldnotes.torch.graph', fromlist=['emit']).emit(globals(), {request!r})\n"


def submit(store: Store, scheduler: Scheduler, spec: Spec, timeout: float, priority: float | None = None):
    """The future of the diagram's run, which records the snippet's backward pass too: one per build for
    the same snippet, helpers and tensors."""
    then = then_code(spec)
    same = ("graph", store.run_key(spec.snippet), steps.BEFORE, then, timeout)
    return scheduler.submit(spec.snippet, timeout, then=then, priority=priority, same=same, before=steps.BEFORE)


def draw(store: Store, scheduler: Scheduler, spec: Spec, timeout: float) -> dict:
    """Run the snippet: the SVG it drew, the steps of its backward pass (or None) and which box stands for
    each step's key. A FenceError says why there is none. (The snippet's own output is its example
    block's to check: the diagram draws what the current code builds, drifted or not.)"""
    try:
        run = submit(store, scheduler, spec, timeout).result()
    except runner.SnippetTimeout as timeout_error:
        raise FenceError(f"{timeout_error}. It printed before that:\n{timeout_error.partial_output}") from None
    drawn, problem = graph.extract(run.output)
    if problem is not None:
        raise FenceError(problem)
    if run.exit_code != 0:
        raise FenceError(
            f"{spec.snippet} failed (exit code {run.exit_code}), so there is no graph to draw:\n{run.output}"
        )
    if drawn is None:
        raise FenceError(f"drawing the graph printed no diagram. The run printed:\n{run.output}")
    svg = graph.render_svg(drawn, id_prefix=spec.id_prefix, title=spec.title)
    return {"svg": svg, "steps": protocol.extract_steps(run.output), "where": where(drawn)}


def where(drawn: graph.Graph) -> dict[str, str]:
    """The key of each recorded step's node or tensor (`graph.replay`) -> the id of the box that stands for it."""
    return {key: node.id for node in drawn.nodes for key in node.keys}


def drawing_code() -> list[Path]:
    """The code that draws a diagram and records its steps: every module of the graph package, and this one."""
    return [*sorted(Path(graph.__file__).parent.glob("*.py")), Path(__file__)]


def cache_key(store: Store, spec: Spec) -> str:
    drawing = cache.code_digest(*drawing_code())
    return store.key(f"graph {drawing}", store.run_key(spec.snippet).encode(), repr(spec).encode())


def cached_draw(store: Store, scheduler: Scheduler, spec: Spec, timeout: float) -> dict:
    """`draw`'s answer, from the store when it has it."""
    key = cache_key(store, spec)
    stored = store.load(key)
    if stored is not None:
        return stored
    drawn = draw(store, scheduler, spec, timeout)
    store.save(key, {"snippet": spec.snippet, **drawn})
    return drawn


def start(store: Store, scheduler: Scheduler, timeout: float, pages: Iterable[Page]) -> None:
    """Submit the run of every diagram of `pages` not in the store yet, so that it runs beside the
    examples; drawing it (`cached_draw`, where the page or its notebook shows it) then waits for the
    very same run (`Scheduler.submit` gives it again). A fence that cannot be parsed is left to its
    page, which reports it."""
    for page in pages:
        for body in page.diagrams:
            try:
                spec = parse(body, store.root)
            except FenceError:
                continue
            if store.load(cache_key(store, spec)) is None:
                submit(store, scheduler, spec, timeout, priority=jobs.FIRST)


def render(spec: Spec, svg: str, steps_html: str = "") -> str:
    """The figure: the diagram, its caption, and the steps of the backward pass under it, if any. Out of
    the site's search (`data-search-exclude`): every diagram's description starts with the same legend,
    which named AccumulateGrad and next_functions on every page with a diagram, and so took those
    queries from the page that teaches them."""
    caption = ""
    if spec.caption:
        text = re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(spec.caption))
        caption = f"\n<figcaption>{text}</figcaption>"
    if steps_html:
        steps_html = f"\n{steps_html}"
    return f'<figure class="{FENCE_NAME}" data-search-exclude>\n{svg}{caption}{steps_html}\n</figure>'


def error_block(message: str) -> str:
    return (
        f'<div class="admonition failure {FENCE_NAME}-error">'
        '<p class="admonition-title">This autograd graph could not be drawn</p>'
        f"<pre><code>{escape(message)}</code></pre></div>"
    )


def steps_error_block(message: str) -> str:
    return (
        f'<div class="admonition failure {FENCE_NAME}-error">'
        '<p class="admonition-title">This backward pass ran differently from its recorded steps</p>'
        f"<pre><code>{escape(message)}</code></pre></div>"
    )


def not_drawn_block() -> str:
    return (
        f'<div class="admonition note {FENCE_NAME}-off">'
        '<p class="admonition-title">Autograd graph not drawn</p>'
        "<p>This build runs no examples (the fieldnotes plugin's <code>execute: false</code>), and the "
        "diagram is drawn from the tensors a snippet leaves behind.</p></div>"
    )


def make_fence(
    store: Store,
    scheduler: Scheduler,
    timeout: float,
    page: Callable[[], str] | None = None,
    execute: bool = True,
    *,
    record_command: str = RECORD_COMMAND,
) -> dict:
    """The pymdownx.superfences custom_fences entry for ```autograd-graph.

    `page`, if given, returns the path of the page being rendered, for the warnings. With
    `execute=False` (the plugin's option: run nothing) the fence runs nothing either and shows a
    note. A diagram drawn by an earlier build is reused while nothing it depends on has changed and
    the store reuses anything (the plugin's `cache` option). The recorded backward pass is compared with
    the snippet's recorded steps (`fieldnotes.torch.steps`) at every build, reused or not: where they
    differ, the page shows the diff under the diagram, and the warning fails the strict build.
    """

    def format_fence(source, language, css_class, options, md, **kwargs) -> str:
        where = page() if page else "a page"
        snippet = "its snippet"
        try:
            spec = parse(source, store.root)
            snippet = spec.snippet
            if not execute:
                return not_drawn_block()
            drawn = cached_draw(store, scheduler, spec, timeout)
        except FenceError as problem:
            log.warning(f"{where}: the autograd-graph of {snippet} could not be drawn: {problem}")
            return error_block(str(problem))
        problem = steps.drift(store.root, snippet, drawn["steps"], record_command)
        if problem is not None:
            log.warning(f"{where}: {problem}")
            return render(spec, drawn["svg"]) + "\n" + steps_error_block(problem)
        return render(spec, drawn["svg"], steps.render(drawn["steps"], drawn["where"]) if drawn["steps"] else "")

    return {"name": FENCE_NAME, "class": FENCE_NAME, "format": format_fence}
