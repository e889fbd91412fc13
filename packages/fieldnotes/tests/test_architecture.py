"""The package's boundaries (issue 44): torch is one feature set among others, and the engine serves any
site. Read from the source, so they hold before anything imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "fieldnotes"
TORCH = PACKAGE / "torch"
TORCH_NAME = "fieldnotes.torch"
# Paths and names only this site has; an engine that names one works only here.
SITE_PATHS = ("docs/exercise", "vanishing_gradients", "versions.md", "leaf-vs-intermediate", "grad_none/")


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code (a lazy import inside a function counts)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def code_strings(path: Path) -> list[str]:
    """The string constants of `path`'s code; a string that is a statement of its own (a docstring, an
    attribute's) is left out: it may give an example's path."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
    ]


def outside_torch() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if TORCH not in p.parents]


def test_nothing_outside_fieldnotes_torch_imports_torch():
    """Catches a module outside fieldnotes/torch that imports torch or fieldnotes.torch, at its top or
    inside a function (the plugin once imported the torch features itself)."""
    assert len(outside_torch()) > 30
    torch = lambda name: name.split(".")[0] == "torch" or name.startswith(TORCH_NAME)  # noqa: E731
    offenders = {str(path.relative_to(PACKAGE)): sorted(filter(torch, imported(path))) for path in outside_torch()}
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_package_names_none_of_this_sites_paths():
    """Catches a path of this site written into the engine's code (the exercise's notebook, the versions
    page, a lesson), where it must be an option of the plugin that the site's mkdocs.yml gives."""
    named = {
        str(path.relative_to(PACKAGE)): [s for s in code_strings(path) if any(p in s for p in SITE_PATHS)]
        for path in sorted(PACKAGE.rglob("*.py"))
    }
    assert {path: strings for path, strings in named.items() if strings} == {}


def test_the_checks_see_what_they_look_for(tmp_path):
    """The two checks above are not blind: a lazy torch import and a site path in code are found, a
    docstring's example path is not."""
    module = tmp_path / "m.py"
    module.write_text('"""Like docs/x.py."""\ndef f():\n    import fieldnotes.torch.steps\n    return "versions.md"\n')
    assert "fieldnotes.torch.steps" in imported(module)
    assert code_strings(module) == ["versions.md"]
