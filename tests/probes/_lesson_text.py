"""What the lesson probes share: the sentence a probe tries to break must still be on its page.

A probe backs the words it quotes. When a lesson's wording changes, its probe fails here, so whoever
changed the sentence tries the new words against torch too, instead of leaving an old probe behind.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

NON_LEAF_WARNING = "is not a leaf Tensor is being accessed"


def prose(page: str) -> str:
    """The page's Markdown with line breaks and runs of spaces collapsed, as a reader reads the text."""
    return " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())


def assert_on_page(page: str, sentence: str) -> None:
    """The quoted words are on the page (whitespace aside)."""
    words = " ".join(sentence.split())
    assert words in prose(page), f"docs/{page} no longer says {words!r}: try the new wording against torch"


def stderr_of(code: str) -> str:
    """What `code` prints to stderr in a fresh interpreter: Python's warning filters and the once-per-line
    memory start empty there, as in a reader's script."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
