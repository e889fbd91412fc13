"""The copy button of every executed example copies exactly the snippet file it shows (and the file
name's download link, when there is one, serves exactly that file). That the page shows every executed
example its Markdown source holds is checked without a browser, in tests/test_site_pages.py.

"Exactly" means the clipboard holds the bytes of snippets/x/y.py, decoded as UTF-8, with two
allowances: the file's single final newline may be missing, since the theme trims it from the copied
text, and its pymdownx.snippets section-marker lines are missing, since a whole-file include drops
them. Any other difference (a line hidden by `markdown-exec: hide`, tabs, trailing spaces, a changed
character, the output pasted in too) fails with a diff.
"""

from __future__ import annotations

import difflib
import re

import pytest
from browser_site import ROOT, SNIPPETS, WIDTHS
from page_visit import by_configuration

# A block's title naming its snippet, as the build writes it (with or without its download link).
SNIPPET_TITLE = re.compile(r'<span class="filename"[^>]*>(?:<a [^>]*>)?snippets/')
SECTION_MARKER = re.compile(r"^[ \t]*-+8<-+[ \t]+\[(start|end):[a-z][-_0-9a-z]*\][ \t]*$", re.MULTILINE)

# Each executed example's block: its title, and its download link's path when the title is one; its copy
# button, if it has one, is marked with the block's index for the click.
EXAMPLE_BLOCKS = """() => [...document.querySelectorAll(".highlight")]
  .map(block => [block, block.querySelector(":scope > .filename")])
  .filter(([block, title]) => title && title.innerText.trim().startsWith("snippets/"))
  .map(([block, title], index) => {
    const button = block.querySelector("button[data-clipboard-target]");
    button?.setAttribute("data-copy-check", index);
    const link = title.querySelector("a[href]");
    return [title.innerText.trim(), link ? new URL(link.href).pathname : null, Boolean(button)];
  })"""

# A round trip per copy: the clipboard read once the last click's copy has landed (polled in the page),
# and emptied for the next; then the next block's button scrolled into view and where to click it, or
# what covers its centre (a click there would not reach it).
COPY_STEP = """async ({read, aim}) => {
  const step = {};
  if (read) {
    const deadline = Date.now() + 30000;
    step.copied = "";
    while (Date.now() < deadline) {
      const text = await navigator.clipboard.readText();
      if (text) {
        step.copied = text;
        break;
      }
      await new Promise(resolve => setTimeout(resolve, 20));
    }
  }
  await navigator.clipboard.writeText("");
  if (aim !== null) {
    const button = document.querySelector(`button[data-copy-check="${aim}"]`);
    button.scrollIntoView({block: "center", inline: "center"});
    const box = button.getBoundingClientRect();
    step.x = box.left + box.width / 2;
    step.y = box.top + box.height / 2;
    const hit = document.elementFromPoint(step.x, step.y);
    step.covered = hit && button.contains(hit) ? null
      : hit ? `${hit.tagName.toLowerCase()}.${[...hit.classList].join(".")}` : "nothing";
    // The mouse is placed on the screen, the visual viewport: a page wider than a phone's screen moves
    // it off the layout viewport these coordinates are in.
    step.offScreen = visualViewport.offsetLeft !== 0 || visualViewport.offsetTop !== 0 || visualViewport.scale !== 1;
  }
  return step;
}"""


def clipboard_matches(copied: str, file_text: str) -> bool:
    # pymdownx.snippets drops the section markers a file holds for partial includes (rules.py's
    # `--8<-- [start:rule-4]`, inside docstrings) from a whole-file include: the shown code lacks them.
    file_text = "".join(line for line in file_text.splitlines(keepends=True) if not SECTION_MARKER.match(line))
    return copied == file_text or (file_text.endswith("\n") and copied == file_text[:-1])


def test_clipboard_matches_file_rules():
    assert clipboard_matches("a\nb\n", "a\nb\n")
    assert clipboard_matches("a\nb", "a\nb\n")
    assert not clipboard_matches("a\nb", "a\nb\n\n")
    assert not clipboard_matches("a\nb \n", "a\nb\n")
    assert not clipboard_matches("a\n", "a\nb\n")


def copy_problems(page, built_site) -> list[str] | None:
    """Click the copy button of every executed example on the loaded page and compare the clipboard with
    the snippet file (and the file name's download with its bytes); None when the page shows none."""
    examples = page.evaluate(EXAMPLE_BLOCKS)
    if not examples:
        return None
    buttons = sum(has_button for *_, has_button in examples)
    if buttons != len(examples):
        return [f"{len(examples)} executed examples but {buttons} copy buttons"]

    problems, files = [], []
    for index, (title, download, _) in enumerate(examples):
        path = (ROOT / title).resolve()
        if path.is_relative_to(SNIPPETS) and path.is_file():
            files.append((index, title, download, path))
        else:
            problems.append(f"{title} is not a snippet file")
    if not files:
        return problems

    # A real click on each button, as a reader's: the mouse pressed at its centre, and the theme's own
    # copy code run.
    step = page.evaluate(COPY_STEP, {"read": False, "aim": files[0][0]})
    for number, (index, title, download, path) in enumerate(files):
        following = files[number + 1][0] if number + 1 < len(files) else None
        if step["covered"]:
            problems.append(f"{title}: {step['covered']} covers the middle of its copy button")
            step = page.evaluate(COPY_STEP, {"read": False, "aim": following})
            continue
        if step["offScreen"]:  # Playwright's click finds the button on the screen itself
            page.locator(f'button[data-copy-check="{index}"]').click()
        else:
            page.mouse.click(step["x"], step["y"])
        step = page.evaluate(COPY_STEP, {"read": True, "aim": following})
        copied, expected = step["copied"], path.read_bytes().decode("utf-8")
        if not clipboard_matches(copied, expected):
            diff = "".join(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    copied.splitlines(keepends=True),
                    fromfile=title,
                    tofile="clipboard",
                )
            )
            problems.append(f"{title}: the clipboard differs from the file\n{diff or repr(copied)}")

        # The file name, when it links to a download, must serve the very same bytes.
        if download is not None:
            served = built_site / download.lstrip("/")
            if not served.is_file() or served.read_bytes() != path.read_bytes():
                problems.append(f"{title}: its download link serves other bytes than the file")
    return problems


@by_configuration("width", WIDTHS)
def test_copy_button_copies_the_snippet_file(page_visit, site_page, width, built_site):
    """Catches a shown source that is not the file (a hidden line, changed whitespace, the output pasted in),
    and a download link serving other bytes. On a phone too, where overrides/partials/code-lines.html
    wraps indented lines in spans of their own (a span that changed the text would show here). A page is
    skipped only if its HTML has no block titled by a snippet: a check that found no block in the browser
    would otherwise pass every page."""
    visit = page_visit(site_page, width)
    problems = visit.get("copy")
    if problems is None:
        html = (built_site / site_page.strip("/") / "index.html").read_text(encoding="utf-8")
        assert not SNIPPET_TITLE.search(html), f"{site_page} has executed examples, but the browser found none"
        pytest.skip(f"{site_page} shows no executed example")
    assert not problems, f"{site_page}:\n" + "\n".join(problems)
    visit.check_guard()
