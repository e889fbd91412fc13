"""Instant navigation (navigation.instant) keeps every page's executed outputs, diagrams and images.

The test opens the home page, then visits every page of the site by clicking its link in the primary
navigation (opening a collapsed section first; a page outside the nav is reached through a link added
to the page), each time without a full page load. After each move the page must show:

- every executed example (a `snippets/...` source block) followed by its output block, whose text is
  the recorded .out file;
- as many diagrams (top-level <svg> in the content) and images as the built page holds, every SVG
  drawn with a size and every image loaded;
- the new page's title in the tab.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from browser_site import BUDGET_MS, CONTENT, SNIPPETS, site_pages
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# What a reader sees of the executed content: outputs, drawn SVGs, loaded images.
RENDERED = """() => {
  const article = document.querySelector("article.md-content__inner");
  const outputs = [...article.querySelectorAll(".highlight > .filename")]
    .filter(span => span.textContent.trim().startsWith("snippets/"))
    .map(span => {
      const next = span.parentElement.nextElementSibling;
      const code = next && next.matches(".highlight") && !next.querySelector(":scope > .filename")
        ? next.querySelector("code") : null;
      return [span.textContent.trim(), code ? code.textContent : null];
    });
  const svgs = [...article.querySelectorAll("svg")]
    .filter(svg => !svg.parentElement.closest("svg"))
    .map(svg => { const r = svg.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const images = [...article.querySelectorAll("img")].map(img => img.complete && img.naturalWidth > 0);
  return {outputs, svgs, images, title: document.title};
}"""

NAV_LINKS = ".md-sidebar--primary a.md-nav__link[href]"
# The index of the page's link in the primary nav, and the toggles of the collapsed sections around it.
FIND_NAV_LINK = f"""path => {{
  const links = [...document.querySelectorAll("{NAV_LINKS}")];
  const index = links.findIndex(a => {{ const url = new URL(a.href); return url.pathname === path && !url.hash; }});
  if (index < 0) return {{index, toggles: []}};
  const toggles = [];
  for (let item = links[index].closest(".md-nav__item--nested"); item;
       item = item.parentElement.closest(".md-nav__item--nested")) {{
    const toggle = item.querySelector(":scope > input.md-nav__toggle");
    if (toggle && !toggle.checked) toggles.unshift(toggle.id);
  }}
  return {{index, toggles}};
}}"""
ADD_LINK = """path => {
  const a = document.createElement("a");
  a.href = path; a.id = "__test_link"; a.textContent = "test link";
  document.querySelector("article.md-content__inner").append(a);
}"""


class _Content(HTMLParser):
    """From a built page's content: its snippet titles, top-level <svg>s and <img>s."""

    def __init__(self):
        super().__init__()
        self.snippets, self.svgs, self.images = [], 0, 0
        self._svg_depth = 0
        self._in_filename = False

    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs += self._svg_depth == 0
            self._svg_depth += 1
        elif tag == "img":
            self.images += 1
        elif tag == "span" and "filename" in (dict(attrs).get("class") or "").split():
            self._in_filename = True
            self.snippets.append("")

    def handle_startendtag(self, tag, attrs):
        if tag == "img":
            self.images += 1
        elif tag == "svg":
            self.svgs += self._svg_depth == 0

    def handle_endtag(self, tag):
        if tag == "svg":
            self._svg_depth -= 1
        elif tag == "span":
            self._in_filename = False

    def handle_data(self, data):
        if self._in_filename:
            self.snippets[-1] += data


def built(site: Path, path: str) -> dict:
    text = (site / path.lstrip("/") / "index.html").read_text(encoding="utf-8")
    start = text.index('<article class="md-content__inner')
    content = _Content()
    content.feed(text[start : text.index("</article>", start)])
    return {
        "title": html.unescape(re.search(r"<title>(.*?)</title>", text, re.DOTALL)[1].strip()),
        "snippets": [s.strip() for s in content.snippets if s.strip().startswith("snippets/")],
        "svgs": content.svgs,
        "images": content.images,
    }


def recorded_output(title: str) -> str | None:
    out = (SNIPPETS.parent / title).with_suffix(".out")
    return out.read_text(encoding="utf-8") if out.is_file() else None


def go(page, path: str) -> None:
    """Click the page's link in the primary nav (opening its sections first), or an added link."""
    found = page.evaluate(FIND_NAV_LINK, path)
    if found["index"] >= 0:
        for toggle in found["toggles"]:
            page.locator(f'.md-sidebar--primary label.md-nav__link[for="{toggle}"]').click()
        target = page.locator(NAV_LINKS).nth(found["index"])
    else:  # not in the nav: follow an ordinary link to it instead
        page.evaluate(ADD_LINK, path)
        target = page.locator("#__test_link")
    target.click()
    page.wait_for_url(lambda url: urlsplit(url).path == path)


def test_instant_navigation_keeps_outputs_diagrams_and_images(guarded, built_site):
    page, guard = guarded
    page.goto("/")
    page.evaluate("window.__loaded_once = true")  # gone if a click does a full page load
    problems = []
    for path in [*(p for p in site_pages() if p != "/"), "/"]:  # every page, then back home
        expected = built(built_site, path)
        go(page, path)
        try:
            page.wait_for_function("t => document.title === t", arg=expected["title"], polling=50, timeout=BUDGET_MS)
        except PlaywrightTimeoutError:
            problems.append(f"{path}: the tab title stayed {page.title()!r}, not {expected['title']!r}")
        if not page.evaluate("window.__loaded_once === true"):
            problems.append(f"{path}: the click did a full page load, not an instant navigation")
            page.evaluate("window.__loaded_once = true")
        page.locator(f"{CONTENT} h1").first.wait_for()
        page.wait_for_function(
            "() => [...document.querySelectorAll('article.md-content__inner img')].every(i => i.complete)"
        )
        shown = page.evaluate(RENDERED)

        titles = [title for title, _ in shown["outputs"]]
        if titles != expected["snippets"]:
            problems.append(f"{path}: shows the examples {titles}, the built page {expected['snippets']}")
        for title, output in shown["outputs"]:
            recorded = recorded_output(title)
            if output is None:
                problems.append(f"{path}: {title} shows no output block")
            elif recorded is not None and output.rstrip("\n") != recorded.rstrip("\n"):
                problems.append(f"{path}: {title} shows an output other than {re.sub(r'py$', 'out', title)}")
        if len(shown["svgs"]) != expected["svgs"] or not all(shown["svgs"]):
            problems.append(f"{path}: SVGs drawn with a size {shown['svgs']}, the built page has {expected['svgs']}")
        if len(shown["images"]) != expected["images"] or not all(shown["images"]):
            problems.append(f"{path}: images loaded {shown['images']}, the built page has {expected['images']}")

    assert not problems, "\n".join(problems)
    guard.check()
