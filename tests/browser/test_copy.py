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

# The clipboard, once the copy has landed (polled in the page: one round trip), emptied again for the
# next block's copy.
READ_CLIPBOARD = """async () => {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    const text = await navigator.clipboard.readText();
    if (text) {
      await navigator.clipboard.writeText("");
      return text;
    }
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return "";
}"""

# Each executed example's block: its title, and its download link's path when the title is one; its copy
# button is marked for the click.
EXAMPLE_BLOCKS = """() => [...document.querySelectorAll(".highlight")]
  .map(block => [block, block.querySelector(":scope > .filename")])
  .filter(([block, title]) => title && title.innerText.trim().startsWith("snippets/"))
  .map(([block, title]) => {
    block.querySelector("button[data-clipboard-target]")?.setAttribute("data-copy-check", "");
    const link = title.querySelector("a[href]");
    return [title.innerText.trim(), link ? new URL(link.href).pathname : null];
  })"""


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
    # The buttons of those blocks, in the same order: a real click each, as a reader's.
    buttons = page.locator("button[data-copy-check]").element_handles()
    if len(buttons) != len(examples):
        return [f"{len(examples)} executed examples but {len(buttons)} copy buttons"]

    problems = []
    page.evaluate("navigator.clipboard.writeText('')")
    for (title, download), button in zip(examples, buttons, strict=True):
        path = (ROOT / title).resolve()
        if not (path.is_relative_to(SNIPPETS) and path.is_file()):
            problems.append(f"{title} is not a snippet file")
            continue
        expected = path.read_bytes().decode("utf-8")
        button.click()
        copied = page.evaluate(READ_CLIPBOARD)
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
