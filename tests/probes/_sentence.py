"""What every FAQ probe shares: the sentence it tries to break must still be on its page.

A probe backs the words it quotes. When the page's wording changes, the probe fails here, so whoever
changed the sentence tries the new words against torch too instead of leaving an old probe behind.
"""

from __future__ import annotations

from tests.conftest import ROOT

RULES_PY = "snippets/rules/rules.py"
"""Where the rules' words live once; pages include them from there."""


def rule_says(words: str) -> None:
    """The quoted words are in a rule's text (whitespace aside)."""
    text = " ".join((ROOT / RULES_PY).read_text(encoding="utf-8").split())
    assert " ".join(words.split()) in text, f"rules.py no longer says {words!r}: try the new wording"


def prose(page: str) -> str:
    """The page's Markdown with line breaks and runs of spaces collapsed, as a reader sees the text."""
    return " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())


def assert_on_page(page: str, sentence: str) -> None:
    """The quoted words are on the page (whitespace aside)."""
    text = prose(page)
    words = " ".join(sentence.split())
    assert words in text, f"docs/{page} no longer says {words!r}: try the new wording against torch"


def raises(fn, expected: type[BaseException] = RuntimeError) -> str:
    """Run fn, which must raise `expected`; return the message."""
    try:
        fn()
    except expected as error:
        return str(error)
    raise AssertionError(f"{fn} raised nothing")


def sentence_marker(said: dict[str, str]):
    """A decorator `@mark("...")` that records in `said` which sentence of its page a probe tries."""

    def mark(sentence: str):
        def record(probe):
            said[probe.__name__] = sentence
            return probe

        return record

    return mark
