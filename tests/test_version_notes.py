"""The note beside an output that another torch prints differently (issue 42): a drift of torch's C++
source line alone gets one line and no diff; a change of behaviour keeps its folded diff.

Catches: the full unified diff back for a moved source line (it repeated torch's 400-character warning
twice to show one changed line number, on five pages), the one line shown for a behaviour change (its
diff gone), and two torches' notes that no longer name both torches.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from fieldnotes.torch import versions
from fieldnotes.torch.drift.classify import snippet_digest

WARNING = (
    "x.py:5: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
    "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:{line}.)\n"
)
RECORDED = "b.grad: None\n" + WARNING.format(line=493)


def note(tmp_path: Path, printed_by: dict[str, str]) -> str:
    """The note beside snippets/x.py, recorded as RECORDED, under reports of the given torches and outputs."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "x.py").write_text("print('x')\n")
    (tmp_path / "snippets" / "x.out").write_text(RECORDED)
    key = snippet_digest(tmp_path, "snippets/x.py")
    reports = [
        {"torch_version": torch, "examples": {"snippets/x.py": {"content_key": key, "exit_code": 0, "output": out}}}
        for torch, out in printed_by.items()
    ]
    return versions.note_html(versions.Verdicts(tmp_path, reports), "snippets/x.py", "../versions/")


def test_a_moved_source_line_gets_one_line_and_no_diff(tmp_path):
    moved = "b.grad: None\n" + WARNING.format(line=512)
    shown = note(tmp_path, {"2.14.1": moved, "2.15.0": moved})
    text = html.unescape(re.sub(r"<[^>]+>", "", shown))
    assert text == "Same under torch 2.14.1 and 2.15.0; only torch's source line differs (Torch versions).", shown
    assert "<pre" not in shown and "<details" not in shown
    assert 'href="../versions/"' in shown


def test_a_change_of_behaviour_keeps_its_diff(tmp_path):
    changed = "b.grad: tensor(1.)\n" + WARNING.format(line=512)
    moved = "b.grad: None\n" + WARNING.format(line=512)
    shown = note(tmp_path, {"2.14.1": moved, "2.15.0": changed})
    folded = re.findall(r"<details.*?</details>", shown, re.DOTALL)
    assert len(folded) == 1 and "Under torch 2.15.0 this example prints differently" in folded[0]
    diff = html.unescape(re.sub(r"<[^>]+>", "", folded[0]))
    assert "-b.grad: None\n" in diff and "+b.grad: tensor(1.)\n" in diff
    assert "Same under torch 2.14.1; only torch's source line differs" in shown


def test_an_output_that_prints_the_same_gets_no_note(tmp_path):
    assert note(tmp_path, {"2.14.1": RECORDED}) == ""
