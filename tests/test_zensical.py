"""Zensical, which ignores MkDocs plugins, runs the Markdown extension alone (`fieldnotes.extension` in
mkdocs.yml's markdown_extensions): a small project's blocks, one in a content tab, are run and shown, and
a drift stops `zensical build` with exit code 1, naming the page's line and the diff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import BUILD_ENV

MKDOCS_YML = """\
site_name: tiny
markdown_extensions:
  - pymdownx.superfences
  - pymdownx.tabbed: {alternate_style: true}
  - pymdownx.snippets: {base_path: [snippets], check_paths: true}
  - fieldnotes.extension
plugins:
  - fieldnotes: {timeout: 30}
"""

PAGE = """\
# Tiny

```python exec="on" source="above" result="text"
--8<-- "top.py"
```

=== "A tab"

    ```python exec="on" source="above" result="text"
    --8<-- "tabbed.py"
    ```
"""


def zensical_build(project: Path) -> subprocess.CompletedProcess:
    zensical = Path(sys.executable).with_name("zensical")
    command = [str(zensical), "build", "--clean", "-f", "mkdocs.yml"]  # --clean: every page rendered again
    return subprocess.run(command, cwd=project, env=BUILD_ENV, capture_output=True, text=True, timeout=300)


def test_zensical_runs_each_block_and_a_drift_fails_the_build(tmp_path):
    """Catches the examples left unrun under Zensical (their code shown without outputs, the build passing),
    a drift in a content tab passed, or a drift only logged: Zensical passes a build whose formatter logs
    a warning or raises any exception but superfences' own."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "mkdocs.yml").write_text(MKDOCS_YML)
    (tmp_path / "docs" / "index.md").write_text(PAGE)
    for name in ("top", "tabbed"):
        (tmp_path / "snippets" / f"{name}.py").write_text(f"print('printed by {name}')\n")
        (tmp_path / "snippets" / f"{name}.out").write_text(f"printed by {name}\n")
    built = zensical_build(tmp_path)
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<code>printed by top\n</code>" in page and "<code>printed by tabbed\n</code>" in page

    (tmp_path / "snippets" / "tabbed.out").write_text("recorded before\n")
    drifted = zensical_build(tmp_path)
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    assert "docs/index.md:10: snippets/tabbed.py printed something other than its recorded output" in drifted.stderr
    assert "-recorded before" in drifted.stderr and "+printed by tabbed" in drifted.stderr
