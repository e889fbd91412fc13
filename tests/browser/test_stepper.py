"""The backward pass under each diagram (fieldnotes.torch.steps, overrides/javascripts/stepper.js): on
desktop and on a phone, the keyboard alone steps through every stepper of the site, and each step's text,
read from its live region, is the recorded step (snippets/**/NAME.steps.json) of the snippet the diagram
draws; the step's box is marked in the diagram. The pages stay under 100 KB of HTML."""

from __future__ import annotations

import json
import re

import pytest
from browser_site import ROOT, WIDTHS

# The pages whose diagrams show steps, read from the built site, with each stepper's snippet (named by
# the diagram's title) in the page's order.
TITLE = re.compile(r'<title id="[^"]+">Autograd graph of [^<]* after (snippets/[^<]+\.py) ran</title>')
STEPS_LIST = '<ol class="ag-steps"'
PAGE_BUDGET = 100_000


def stepper_pages(built_site) -> dict[str, list[str]]:
    pages = {}
    for html in sorted(built_site.rglob("index.html")):
        text = html.read_text(encoding="utf-8")
        parts = text.split('<figure class="autograd-graph" data-search-exclude>')[1:]
        figures = [part for part in parts if STEPS_LIST in part.split("</figure>")[0]]
        if figures:
            path = "/" + html.parent.relative_to(built_site).as_posix() + "/"
            pages[path.replace("//", "/")] = [TITLE.search(f).group(1) for f in figures]
    return pages


def recorded(snippet: str) -> list[str]:
    return [step["text"] for step in json.loads((ROOT / snippet).with_suffix(".steps.json").read_text())]


STATE = """figure => ({
  text: figure.querySelector('.ag-step').textContent,
  live: figure.querySelector('.ag-step').getAttribute('aria-live'),
  lit: [...figure.querySelectorAll('svg .ag-current')].map(e => e.getAttribute('data-node') || 'edge'),
  wanted: figure.querySelector('li[aria-current]').getAttribute('data-node'),
  focused: figure.contains(document.activeElement),
  listShown: getComputedStyle(figure.querySelector('ol.ag-steps')).display !== 'none',
})"""


def test_at_least_five_pages_step_through_a_recorded_backward_pass(built_site):
    """Catches the steps dropped from the pages, or pages whose HTML outgrew the budget with them."""
    pages = stepper_pages(built_site)
    assert len(pages) >= 5, pages
    for path in pages:
        size = len((built_site / path.strip("/") / "index.html").read_bytes())
        assert size <= PAGE_BUDGET, f"{path}: {size} bytes of HTML"


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_the_keyboard_steps_through_every_recorded_step(new_guarded_page, built_site, width):
    """Catches a stepper that skips, repeats or invents a step, shows another text than the recorded one,
    announces nothing (no live region), marks no box, loses the focus, or does not answer the arrow keys;
    and a step list whose text (what a reader without JavaScript sees) is not the recorded steps."""
    page, guard = new_guarded_page(**WIDTHS[width])
    problems = []
    for path, snippets in stepper_pages(built_site).items():
        page.goto(path)
        figures = page.locator("figure.autograd-graph:has(ol.ag-steps)")
        figures.first.locator(".ag-stepper").wait_for()
        assert figures.count() == len(snippets)
        for index, snippet in enumerate(snippets):
            figure = figures.nth(index)
            expected = recorded(snippet)
            listed = figure.locator("ol.ag-steps > li").all_text_contents()
            if listed != expected:
                problems.append(f"{path} {snippet}: the list shows {listed}")
            figure.locator("button.ag-next").focus()
            seen = []
            for step in range(len(expected)):
                state = figure.evaluate(STATE)
                seen.append(state["text"])
                if state["live"] != "polite" or not state["focused"] or state["listShown"]:
                    problems.append(f"{path} {snippet} step {step + 1}: {state}")
                if state["wanted"] and state["wanted"] not in state["lit"]:
                    problems.append(f"{path} {snippet} step {step + 1}: box {state['wanted']} not marked")
                page.keyboard.press("ArrowRight")
            wanted = [f"Step {i + 1} of {len(expected)}: {text}" for i, text in enumerate(expected)]
            if seen != wanted:
                problems.append(f"{path} {snippet}: stepped through {seen}, recorded {wanted}")
            page.keyboard.press("ArrowLeft")
            back = figure.evaluate(STATE)["text"]
            if len(expected) > 1 and not back.startswith(f"Step {len(expected) - 1} of"):
                problems.append(f"{path} {snippet}: ArrowLeft from the last step shows {back!r}")
    assert not problems, "\n".join(problems)
    guard.check()
