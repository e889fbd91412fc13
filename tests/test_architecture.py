"""The package keeps the shape ARCHITECTURE.md describes: a core that does not import MkDocs, no module
over 300 lines, and every module in the table that says where its tests are."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

PACKAGE = ROOT / "fieldnotes"
CORE = ("examples", "runner", "jobs", "cache", "blocks", "render.page_notebook")


def test_the_core_imports_no_mkdocs():
    """Catches a core module (what `record`, the shards and the tests use) that starts depending on MkDocs."""
    code = (
        f"import sys\nfor name in {CORE!r}:\n    __import__('fieldnotes.' + name)\nassert 'mkdocs' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_no_module_is_over_300_lines():
    long = {
        p.relative_to(ROOT).as_posix(): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > 300
    }
    assert not long


def test_every_module_is_in_the_architecture_table():
    """Catches a module added without saying where it belongs and which tests check it."""
    table = (ROOT / "ARCHITECTURE.md").read_text()
    named = set(re.findall(r"`([\w/]+\.py)`", table))
    named |= {f"features/{m}" for m in re.findall(r"`(\w+\.py)`", table)}  # `api_names.py` beside features/
    for module in PACKAGE.rglob("*.py"):
        path = module.relative_to(PACKAGE).as_posix()
        if module.name == "__init__.py" or path.startswith("graph/"):
            continue  # a folder's own docstring, and graph/ as one row
        assert path in named, f"ARCHITECTURE.md's module table does not name fieldnotes/{path}"
