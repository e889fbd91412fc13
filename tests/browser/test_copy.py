"""The copy button of every executed example copies exactly the snippet file it shows (and the file
name's download link, when there is one, serves exactly that file). First, the page must show every
executed example its Markdown source holds (`exec="on"` python fences titled snippets/...), in order.

"Exactly" means the clipboard holds the bytes of snippets/x/y.py, decoded as UTF-8, with one
allowance: the file's single final newline may be missing, since the theme trims it from the copied
text. Any other difference (a line hidden by `markdown-exec: hide`, tabs, trailing spaces, a changed
character, the output pasted in too) fails with a diff.
"""

from __future__ import annotations

import difflib
import re
from urllib.parse import urlsplit

import pytest
from browser_site import ROOT, SNIPPETS

DOCS = ROOT / "docs"

# The clipboard, once the copy has landed (polled in the page: one round trip).
READ_CLIPBOARD = """async () => {
  for (let i = 0; i < 100; i++) {
    const text = await navigator.clipboard.readText();
    if (text) return text;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return "";
}"""


# An executed example in a page's Markdown: a python fence with exec="on" and title="snippets/...".
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*python\b(?P<options>[^\n]*)$", re.MULTILINE)
_TITLE = re.compile(r'\btitle="(snippets/[^"]+)"')


def source_examples(site_page: str) -> list[str] | None:
    """The snippet titles of the executed examples in the page's Markdown source (None: not a .md page)."""
    rel = site_page.strip("/")
    candidates = [DOCS / f"{rel}.md", DOCS / rel / "index.md"] if rel else [DOCS / "index.md"]
    for source in candidates:
        if source.is_file():
            fences = _FENCE.finditer(source.read_text(encoding="utf-8"))
            options = [f["options"] for f in fences if 'exec="on"' in f["options"]]
            return [m[1] for m in map(_TITLE.search, options) if m]
    return None


def clipboard_matches(copied: str, file_text: str) -> bool:
    return copied == file_text or (file_text.endswith("\n") and copied == file_text[:-1])


def test_clipboard_matches_file_rules():
    assert clipboard_matches("a\nb\n", "a\nb\n")
    assert clipboard_matches("a\nb", "a\nb\n")
    assert not clipboard_matches("a\nb", "a\nb\n\n")
    assert not clipboard_matches("a\nb \n", "a\nb\n")
    assert not clipboard_matches("a\n", "a\nb\n")


def test_copy_button_copies_the_snippet_file(guarded, site_page, built_site):
    page, guard = guarded
    page.goto(site_page)
    blocks = page.locator(".highlight:has(> .filename)").filter(has=page.locator(".filename", has_text="snippets/"))
    titles = [t.strip() for t in blocks.locator("> .filename").all_inner_texts()]
    examples = [(i, t) for i, t in enumerate(titles) if t.startswith("snippets/")]
    in_source = source_examples(site_page)
    if in_source is not None:
        assert [t for _, t in examples] == in_source, (
            f"{site_page}: its Markdown has the executed examples {in_source}, "
            f"the page shows {[t for _, t in examples]}"
        )
    if not examples:
        pytest.skip(f"{site_page} shows no executed example")

    problems = []
    for index, title in examples:
        path = (ROOT / title).resolve()
        assert path.is_relative_to(SNIPPETS) and path.is_file(), f"{site_page}: {title} is not a snippet file"
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

    assert not problems, f"{site_page}:\n" + "\n".join(problems)
    guard.check()
