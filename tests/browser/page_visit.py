"""One visit per page and configuration: each page of the site is loaded once per (width, colour
scheme), and every check of that page reads what that visit recorded (the `page_visit` fixture,
conftest.py). A page load costs more than any check made on it.

A visit, in this order (each step sees the page as the steps before left it):
- every configuration: the load (HTTP status, the heading, scrolled to the end and back), the scheme
  applied, and with SCREENSHOTS=1 a full-page screenshot;
- on a phone: how wide the page is against the viewport;
- at desktop width: axe's audit (each text style's contrast checked on the first page that shows it);
- in the light scheme: the code blocks measured (test_screen.py), the figures' text, the permalinks,
  the underscores of linked code, and last the copy buttons clicked (test_copy.py).

A step that raises is recorded and raised again in each test that reads it; the Guard's problems
(console errors, page errors, requests to other hosts) are those of the whole visit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from browser_site import BUDGET_MS, CONTENT, page_id

SCHEMES = ("light", "dark")


def visit_group(width: str, scheme: str = "light"):
    """The xdist group of the tests that read the visits of one configuration: each visit is made on
    one worker, and the 4 configurations spread over the workers."""
    return pytest.mark.xdist_group(f"page-visits-{width}-{scheme}")


def by_configuration(name: str, values, **fixed):
    """`@pytest.mark.parametrize(name, values)`, each value in the group of its configuration."""
    return pytest.mark.parametrize(name, [pytest.param(v, marks=visit_group(**{**fixed, name: v})) for v in values])


# How wide the page is against the viewport, and what pokes out (OVERFLOWING), in one round trip.
PAGE_WIDTH = (
    "overflowing => [document.documentElement.scrollWidth, document.documentElement.clientWidth, overflowing()]"
)

# The load's waits, in the page: one round trip, and none of Playwright's own scripts (a locator or a
# wait_for_function sets them up in each new document, at a cost per load). The heading shown; the
# page scrolled to its end and back, each time for a frame, whose scroll steps run the theme's scroll
# handlers there; then every transition and animation finished (not waited for: the end state is the
# same), frame after frame until a frame starts none. Back at the top the header swaps its title
# with a transition: a check made during it (axe's contrast) would see the colours half-way.
SETTLE = """async ({heading, budget}) => {
  const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
  const deadline = performance.now() + budget;
  const shown = el => el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const running = () => document.getAnimations().filter(animation => animation.playState === "running");
  while (!shown(document.querySelector(heading))) {
    if (performance.now() > deadline) throw new Error(`no ${heading} shown`);
    await frame();
  }
  window.scrollTo(0, document.documentElement.scrollHeight);
  await frame();
  window.scrollTo(0, 0);
  await frame();
  for (let left = running(); left.length; left = running()) {
    if (performance.now() > deadline) {
      throw new Error(`still running: ${left.map(a => a.transitionProperty || a.animationName || a.id)}`);
    }
    for (const animation of left) {
      if (animation.effect.getComputedTiming().endTime !== Infinity) animation.finish();
    }
    await frame();
  }
}"""


@dataclass
class Visit:
    site_page: str
    width: str
    scheme: str
    results: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    guard_problems: list[str] = field(default_factory=list)

    def get(self, step: str):
        """What `step` recorded; the step's own error if it raised."""
        if step in self.errors:
            raise self.errors[step]
        return self.results[step]

    def check_guard(self) -> None:
        assert not self.guard_problems, f"{self.site_page} ({self.width}, {self.scheme}) misbehaved:\n  " + (
            "\n  ".join(self.guard_problems)
        )


def _load(page, site_page: str) -> int | None:
    response = page.goto(site_page)
    page.evaluate(SETTLE, {"heading": f"{CONTENT} h1", "budget": BUDGET_MS})
    return response and response.status


def record_visit(
    page, guard, site_page: str, width: str, scheme: str, *, built_site, screenshots_dir, checked_styles: set[str]
) -> Visit:
    """Load `site_page` in the tab and record what every check of this configuration needs. The audit
    checks the contrast of the text styles not in `checked_styles`, and adds them to it."""
    # The measuring code stays with the checks that read it.
    from test_copy import copy_problems
    from test_schemes import OVERFLOWING, audit, scheme_and_luminance, screenshot
    from test_screen import PERMALINKS_ON_THEIR_OWN_LINE, SMALL_FIGURE_TEXT, code_problems, hidden_underscores

    visit = Visit(site_page, width, scheme)
    desktop, light = width == "desktop", scheme == "light"
    steps = [
        ("status", lambda: _load(page, site_page)),
        ("scheme", lambda: scheme_and_luminance(page)),
    ]
    if screenshots_dir is not None:
        shot = screenshots_dir / f"{page_id(site_page).replace('/', '--')}-{scheme}-{width}.jpg"
        steps.append(("screenshot", lambda: screenshot(page, shot)))
    if not desktop:
        steps.append(("page width", lambda: page.evaluate(f"() => ({PAGE_WIDTH})({OVERFLOWING})")))
    if desktop:
        steps.append(("axe", lambda: audit(page, checked_styles)))
    if light:
        steps += [
            ("code", lambda: code_problems(page, site_page, desktop)),
            ("figures", lambda: page.evaluate(SMALL_FIGURE_TEXT)),
            ("permalinks", lambda: page.evaluate(PERMALINKS_ON_THEIR_OWN_LINE)),
            ("underscores", lambda: hidden_underscores(page)),
            ("copy", lambda: copy_problems(page, built_site)),
        ]
    for name, step in steps:
        try:
            visit.results[name] = step()
        except Exception as error:  # noqa: BLE001 - raised again by each test that reads this step
            visit.errors[name] = error
            if name == "status":  # nothing else can be measured on a page that did not load
                for later, _ in steps[1:]:
                    visit.errors[later] = error
                break
    visit.guard_problems = guard.problems()
    return visit
