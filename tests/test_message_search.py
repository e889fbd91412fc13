"""The search entries of fieldnotes.features.message_search: which messages get one, and where it points."""

from __future__ import annotations

from types import SimpleNamespace

from fieldnotes.blocks import Block, Page
from fieldnotes.features.message_search import MessageSearch, printed_messages

TRACEBACK = """Traceback (most recent call last):
  File "snippets/x.py", line 5, in <module>
    x.retain_grad()
RuntimeError: can't retain_grad on Tensor that has requires_grad=False
"""
WARNING = "snippets/w.py:3: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated.\n"  # noqa: E501


def test_messages_are_read_from_errors_and_warnings_first_sentence_only():
    """Catches a warning's line missed (it starts with the file's path), or a whole multi-sentence
    message kept (its later sentences name the reader's own tensors and hints, and outweigh in search)."""
    assert printed_messages(TRACEBACK) == ["can't retain_grad on Tensor that has requires_grad=False"]
    assert printed_messages(WARNING) == ["The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."]
    assert printed_messages("tensor([1., 2.])\nTrue\n") == []


def test_an_entry_per_example_for_a_message_no_heading_names(tmp_path, monkeypatch):
    """Catches an entry for a message that a heading already names (two entries would compete for it),
    an entry pointing elsewhere than the example that prints it, or without its page's boost."""
    outputs = {"snippets/a/x.py": TRACEBACK, "snippets/faq/w.py": WARNING}
    monkeypatch.setattr(
        "fieldnotes.features.message_search.Example",
        lambda root, snippet: SimpleNamespace(recorded=lambda: outputs[snippet]),
    )
    search = MessageSearch(SimpleNamespace(root=tmp_path))
    block = lambda snippet: Block(snippet=snippet, options={}, line=1)  # noqa: E731
    search.on_page(SimpleNamespace(url="lesson/"), Page("", [block("snippets/a/x.py")]))
    search.on_page(SimpleNamespace(url="faq/w/"), Page("", [block("snippets/faq/w.py")]))
    entries = [
        {"location": "lesson/", "title": "A lesson", "text": "", "boost": 0.9},
        {"location": "faq/w/", "title": "Warnings", "text": ""},
        {"location": "faq/w/#w", "title": "The <code>.grad</code> attribute of a Tensor that is not", "text": ""},
    ]
    assert search.entries(entries) == [
        {
            "location": "lesson/#ex-a-x",
            "title": "can't retain_grad on Tensor that has requires_grad=False",
            "text": "",
            "boost": 0.9,
        }
    ]
