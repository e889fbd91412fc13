"""Broken input must fail the strict build, with a message that names the file and says what to do."""

from __future__ import annotations

import re

import pytest

from tests.conftest import TORCH_PIN, Project, block

# The broken build below serves every test here: one worker runs them all (`make test` uses xdist).
pytestmark = pytest.mark.xdist_group("broken-build")

SEED = "import torch\n\na = torch.tensor(2.0, requires_grad=True)\nb = a * 3\nb.sum().backward()\nprint(a.grad)\n"


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    """One build of a project where every example is broken in a different way (strict reports all)."""
    project = Project(tmp_path_factory.mktemp("broken"))
    project.snippet("good.py", SEED, recorded="tensor(3.)\n")
    project.snippet("drifted.py", SEED.replace("a * 3", "a * 4"), recorded="tensor(3.)\n")
    project.snippet("raises.py", "import torch\n\ntorch.ones(2) @ torch.ones(3)\n", recorded="")
    project.snippet("syntax.py", "print('unclosed'\n", recorded="")
    project.snippet("unrecorded.py", "print('new example')\n")
    project.snippet("hangs.py", "import time\n\nprint('started', flush=True)\ntime.sleep(600)\n", recorded="")
    project.snippet("slow.py", "import time\n\ntime.sleep(2)\nprint('done')\n", recorded="done\n")
    project.page(
        "index.md",
        "# Broken\n\n"
        + "".join(block(s) + "\n" for s in ["good.py", "drifted.py", "raises.py", "syntax.py", "unrecorded.py"])
        + block("hangs.py")
        + "\n"
        # Options in another order than block() writes them: the build must still read the timeout.
        + '```python timeout="1" title="snippets/slow.py" exec="on" source="above" result="text"\n'
        + '--8<-- "slow.py"\n```\n'
        + "\n"
        # A true claim first: a check that stopped at a page's first claim would miss the false one.
        + 'It prints `tensor(3.)`{ data-out="good.py" }, not `tensor(4.)`{ data-out="good.py" }.\n\n'
        + '```python exec="on" result="text"\nprint("inline code")\n```\n',
    )
    project.set_option("fieldnotes", timeout=3)
    result = project.build()
    result.site = project.path / "site"
    return result


@pytest.fixture(scope="module")
def broken_page(broken_build) -> str:
    return (broken_build.site / "index.html").read_text()


def test_broken_build_fails(broken_build):
    """Catches problems that are only logged below warning level, or a build that is not strict."""
    assert broken_build.returncode != 0
    assert "Aborted with 8 warnings in strict mode!" in broken_build.stdout + broken_build.stderr


def test_drift_shows_a_unified_diff_naming_page_and_snippet(broken_build):
    """Catches drift detection switched off or loosened (an output that differs from the .out file passes)."""
    log = broken_build.stderr
    assert "docs/index.md:8: snippets/drifted.py printed something other than its recorded output." in log
    assert "--- snippets/drifted.out (recorded)" in log
    assert "-tensor(3.)" in log and "+tensor(4.)" in log
    assert "re-record it with: make update-outputs" in log


def test_drifted_example_shows_the_diff_not_its_output(broken_build, broken_page):
    """Catches a page that shows a drifted output as if it were recorded (MkDocs writes the pages before the
    strict abort; `make serve` is not strict)."""
    problems = re.findall(r'<div class="admonition failure fieldnotes-drift">.*?</div>', broken_page, re.DOTALL)
    (drifted,) = [p for p in problems if "snippets/drifted.py did not print" in p]
    assert "-tensor(3.)" in drifted and "+tensor(4.)" in drifted
    outputs = re.findall(r"<pre><span></span><code>(.*?)</code></pre>", broken_page, re.DOTALL)
    assert "tensor(4.)" not in "".join(outputs) and "tensor(3.)" in "".join(outputs)  # good.py's output is shown


def test_raising_snippet_is_named_with_its_error(broken_build):
    """Catches an example that raises, against a recorded output without a traceback, passing as drift-free."""
    log = broken_build.stderr
    assert "snippets/raises.py raised an exception (exit code 1); its recorded output shows none." in log
    assert 'File "snippets/raises.py", line 3, in <module>' in log
    assert "RuntimeError: size mismatch" in log or "RuntimeError: inconsistent tensor size" in log


def test_syntax_error_is_named(broken_build):
    """Catches a snippet that cannot even be compiled slipping through."""
    log = broken_build.stderr
    assert "snippets/syntax.py raised an exception" in log
    assert 'File "snippets/syntax.py", line 1' in log and "SyntaxError" in log


def test_missing_recorded_output_says_how_to_record(broken_build):
    """Catches an example without a .out file being shown unchecked."""
    log = broken_build.stderr
    assert "snippets/unrecorded.py has no recorded output (snippets/unrecorded.out is missing)." in log
    assert "new example" in log


def test_hanging_snippet_is_killed_after_the_timeout(broken_build):
    """Catches a run without a time limit (the build would hang), or with the wrong one (mkdocs.yml says 3)."""
    log = broken_build.stderr
    assert "snippets/hangs.py did not finish within 3 s and was killed" in log
    assert "started" in log


def test_a_fence_can_set_its_own_timeout(broken_build):
    """Catches a fence timeout that is ignored, also when exec="on" is not the fence's first option."""
    assert "snippets/slow.py did not finish within 1 s and was killed" in broken_build.stderr


def test_false_claim_is_named(broken_build):
    """Catches a claim check that reads only the first claim of a page, or none: the false claim follows a
    true one. (test_good_project_builds catches one that flags true claims.)"""
    log = broken_build.stderr
    assert "the page claims snippets/good.py prints `tensor(4.)`, but its recorded output" in log
    assert "prints `tensor(3.)`" not in log


def test_inline_code_without_a_recorded_output_fails(broken_build):
    """Catches executed inline code passed unchecked: it is checked against the page's recorded outputs
    (docs/index.md.out), which this page has none of."""
    assert re.search(
        r"docs/index\.md:\d+: block \[\w{8}\] has no recorded output \(docs/index\.md\.out is missing\)\.\n"
        r"It printed:\n    inline code\n",
        broken_build.stderr,
    )


def test_missing_include_fails_naming_the_file(project):
    """Catches a missing --8<-- include rendering as nothing (pymdownx.snippets without check_paths, or a
    build that is not strict)."""
    project.page("index.md", "# Missing\n\n" + block("gone.py"))
    result = project.build()
    assert result.returncode != 0
    assert "gone.py" in result.stderr and "could not be found" in result.stderr


def test_good_project_builds(project):
    """The fixture itself is sound: without the broken parts, the same kind of project builds."""
    project.snippet("good.py", SEED, recorded="tensor(3.)\n")
    project.page("index.md", "# Good\n\n" + block("good.py") + '\nIt prints `tensor(3.)`{ data-out="good.py" }.\n')
    result = project.build()
    assert result.returncode == 0, result.stderr
    assert "tensor(3.)" in (project.path / "site" / "index.html").read_text()


def test_old_torch_stops_the_build_at_once(project, tmp_path_factory):
    """A torch older than the pin stops the build before any page, saying what to install."""
    fake = tmp_path_factory.mktemp("old-torch")
    (fake / "torch-2.0.0.dist-info").mkdir()
    (fake / "torch-2.0.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.0.0\n")
    project.page("index.md", "# Page\n")
    result = project.build(env={"PYTHONPATH": str(fake)})
    assert result.returncode != 0
    assert f"torch 2.0.0 is installed but the examples are recorded with torch {TORCH_PIN}" in result.stderr
    assert f"pip install torch=={TORCH_PIN}" in result.stderr
    assert "Traceback" not in result.stderr
