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
from urllib.parse import urlsplit

import pytest
from browser_site import ROOT, SNIPPETS, WIDTHS
from page_visit import by_configuration

SECTION_MARKER = re.compile(r"^[ \t]*-+8<-+[ \t]+\[(start|end):[a-z][-_0-9a-z]*\][ \t]*$", re.MULTILINE)

# The clipboard, once the copy has landed (polled in the page: one round trip).
READ_CLIPBOARD = """async () => {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    const text = await navigator.clipboard.readText();
    if (text) return text;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return "";
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
    blocks = page.locator(".highlight:has(> .filename)").filter(has=page.locator(".filename", has_text="snippets/"))
    titles = [t.strip() for t in blocks.locator("> .filename").all_inner_texts()]
    examples = [(i, t) for i, t in enumerate(titles) if t.startswith("snippets/")]
    if not examples:
        return None

    problems = []
    for index, title in examples:
        path = (ROOT / title).resolve()
        if not (path.is_relative_to(SNIPPETS) and path.is_file()):
            problems.append(f"{title} is not a snippet file")
            continue
        expected = path.read_bytes().decode("utf-8")

        block = blocks.nth(index)
        page.evaluate("navigator.clipboard.writeText('')")
        block.locator("button[data-clipboard-target]").click()
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
        download = block.locator("> .filename a[href]")
        if download.count():
            served = built_site / urlsplit(download.evaluate("a => a.href")).path.lstrip("/")
            if not served.is_file() or served.read_bytes() != path.read_bytes():
                problems.append(f"{title}: its download link serves other bytes than the file")
    return problems


@by_configuration("width", WIDTHS)
def test_copy_button_copies_the_snippet_file(page_visit, site_page, width):
    """Catches a shown source that is not the file (a hidden line, changed whitespace, the output pasted in),
    and a download link serving other bytes. On a phone too, where overrides/partials/code-lines.html
    wraps indented lines in spans of their own (a span that changed the text would show here)."""
    visit = page_visit(site_page, width)
    problems = visit.get("copy")
    if problems is None:
        pytest.skip(f"{site_page} shows no executed example")
    assert not problems, f"{site_page}:\n" + "\n".join(problems)
    visit.check_guard()
