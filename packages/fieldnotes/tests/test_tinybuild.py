"""The small project in tinybuild/ (sphinx-gallery's tinybuild) built under each host of the engine, in
this environment, which has no torch: each build runs the snippets, shows their outputs, and fails when
one prints something other than its recorded output or a page claims what none printed."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TINYBUILD = Path(__file__).parent / "tinybuild"

# Each host's strict build of the project in the current folder into site/. Zensical runs no MkDocs
# plugin: the engine runs there as the Markdown extension mkdocs.yml lists (fieldnotes.extension).
HOSTS = {
    "mkdocs": [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"],
    # `-f mkdocs.yml`: ProperDocs hands the plugin that path as typed, relative (snippet paths in messages
    # and title links came out absolute, and the links broken, until the engine resolved it).
    "properdocs": [sys.executable, "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml", "--site-dir", "site"],
    "zensical": [str(Path(sys.executable).with_name("zensical")), "build", "--strict", "--clean"],
}
PLUGIN_HOSTS = ["mkdocs", "properdocs"]


def built(folder: Path, host: str, *, broken: bool) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of tinybuild/ in `folder` built by `host`; `broken`: with a drift (reverse.out changed) and a
    false claim (`cat` for `the`), which one build reports together."""
    project = folder / "tinybuild"
    shutil.copytree(TINYBUILD, project, ignore=shutil.ignore_patterns(".cache", "site"))
    if broken:
        (project / "examples" / "text" / "reverse.out").write_text("fieldnotes checks every output\n")
        page = project / "docs" / "index.md"
        page.write_text(page.read_text().replace("`the`{", "`cat`{"))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(HOSTS[host], cwd=project, env=env, capture_output=True, text=True, timeout=300)
    return project, done


@pytest.fixture(scope="module", params=HOSTS)
def good_build(request, tmp_path_factory):
    return built(tmp_path_factory.mktemp(request.param), request.param, broken=False)


@pytest.fixture(scope="module", params=HOSTS)
def broken_build(request, tmp_path_factory):
    return built(tmp_path_factory.mktemp(request.param), request.param, broken=True)


def test_the_build_shows_each_snippets_output_with_its_download(good_build, request):
    """Catches a host under which the blocks are not run or not shown, the engine needing torch (not
    installed here), a snippet's download link missing, or the examples looked for in `snippets/` rather
    than the folder pymdownx.snippets' base_path names; under the plugin's hosts, its file too (Zensical
    runs no plugin: ARCHITECTURE.md lists what it lacks)."""
    project, result = good_build
    assert result.returncode == 0, result.stderr
    page = (project / "site" / "index.html").read_text()
    assert ">the 3\nand 2\n</code>" in page
    assert ">output every checks fieldnotes\n</code>" in page
    assert '<a href="examples/text/count.py" download>examples/text/count.py</a>' in page
    if request.node.callspec.params["good_build"] in PLUGIN_HOSTS:
        assert (project / "site" / "examples" / "text" / "reverse.py").is_file()


def test_a_drift_fails_the_build_naming_the_page_and_the_diff(broken_build):
    """Catches a host under which a drift is not checked, or is not a warning (the strict build would
    pass), or a message that loses the page's line, the diff, what printed it or how to re-record."""
    project, result = broken_build
    assert result.returncode != 0
    line = (TINYBUILD / "docs" / "index.md").read_text().splitlines().index('--8<-- "text/reverse.py"') + 1
    drifted = f"docs/index.md:{line}: examples/text/reverse.py printed something other than its recorded output"
    assert drifted in result.stderr
    assert "-fieldnotes checks every output\n" in result.stderr and "+output every checks fieldnotes" in result.stderr
    assert "(printed by Python 3." in result.stderr
    assert "re-record it with: python -m fieldnotes.record examples/text/reverse.py, and review" in result.stderr


@pytest.mark.parametrize("broken_build", PLUGIN_HOSTS, indirect=True)
def test_a_false_claim_fails_the_build(broken_build):
    """Catches a host under which claims are not checked, or a false claim that is not a warning (the
    drift beside it fails the build: both must be among the strict build's warnings). Zensical stops at
    the first problem, the drift; a false claim raising there is test_extension.py's."""
    _, result = broken_build
    claim = next((line for line in result.stderr.splitlines() if "the page claims" in line), "")
    assert claim.startswith("WARNING -  fieldnotes: ")
    assert "the page claims examples/text/count.py prints `cat`" in claim


def test_this_environment_has_no_torch():
    """Catches torch in the engine's test environment (a test dependency that pulls it in): the builds
    above would then no longer show that the engine runs a site without torch."""
    assert importlib.util.find_spec("torch") is None
