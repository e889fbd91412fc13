"""Open in Colab: under the heading of each page that offers a notebook (its examples' `.ipynb`, from
`downloads`, or a notebook page's own, from `notebook_pages`), a badge that opens that very file in
Google Colab, with a sentence saying that Colab's torch may print differently: the plugin's `colab`
option.

Colab opens a notebook from a branch of a GitHub repository,
`https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH`. The repository is the option's
`repository`, else GitHub Actions' `GITHUB_REPOSITORY`; without either no badge is shown, as no URL
would open. The branch (`branch`) holds every `.ipynb` of the built site at its path in the site, as
`python -m fieldnotes.features.colab publish SITE REMOTE` writes it after a build: the notebook Colab
opens is the download the page offers. The badge is an SVG served with the site (`BADGE_URI`): the
page makes no request to another host until the reader follows the link.
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from mkdocs.structure.files import File

from fieldnotes.features import Feature

COLAB_URL = "https://colab.research.google.com/github/{repository}/blob/{branch}/{path}"
BADGE = Path(__file__).with_name("colab-badge.svg")
BADGE_URI = "assets/fieldnotes/colab-badge.svg"


def repository(configured: str, environ: Mapping[str, str] = os.environ) -> str:
    """OWNER/REPO: the configured one, else GitHub Actions' GITHUB_REPOSITORY, else "" (no badge)."""
    return configured.strip() or environ.get("GITHUB_REPOSITORY", "").strip()


def colab_url(repository: str, branch: str, notebook_uri: str) -> str:
    return COLAB_URL.format(repository=repository, branch=branch, path=notebook_uri)


class Colab(Feature):
    order = 70  # after the features that make the notebooks

    def __init__(
        self,
        repository: str,
        branch: str,
        versions_page: str = "",
        printed_by: str = "",
        notebooks: dict[str, str] | None = None,
    ) -> None:
        self.repository = repository
        self.branch = branch
        self.versions_page = versions_page
        """The page (its source, e.g. `versions.md`) that lists what other torch releases print."""
        self.printed_by = printed_by
        """What printed the outputs, as the build names it: "torch 2.13.0" (Build.printed_by)."""
        self.notebooks: dict[str, str] = {} if notebooks is None else notebooks
        """A page's source -> its notebook's path in the site: the build's (`Build.notebooks`), which the
        features that make notebooks fill before this one reads it."""

    def on_files(self, files, config) -> None:
        if self.repository:
            files.append(File.generated(config, BADGE_URI, abs_src_path=str(BADGE)))

    def on_page_content(self, page_html: str, page, config, files) -> str:
        """The badge and its sentence, right after the page's first heading (<h1>)."""
        notebook = self.notebooks.get(page.file.src_uri)
        end_of_heading = page_html.find("</h1>")
        if not (self.repository and notebook) or end_of_heading < 0:
            return page_html
        end_of_heading += len("</h1>")
        versions = files.get_file_from_path(self.versions_page) if self.versions_page else None
        badge = self.badge(
            notebook,
            files.get_file_from_path(BADGE_URI).url_relative_to(page.file),
            versions.url_relative_to(page.file) if versions is not None else None,
        )
        return page_html[:end_of_heading] + badge + page_html[end_of_heading:]

    def badge(self, notebook_uri: str, badge_url: str, versions_url: str | None) -> str:
        """The badge, linked to the notebook in Colab, and the sentence on what printed the outputs."""
        what = self.printed_by.split(" ")[0] or "Python"
        note = f"Colab runs its own {what}, which may print differently from {self.printed_by}, which printed"
        note = html.escape(f"{note} this page's outputs", quote=False)
        if versions_url is not None:
            note += f': <a href="{html.escape(versions_url)}">what other releases print</a>'
        url = colab_url(self.repository, self.branch, notebook_uri)
        return (
            f'<p class="open-in-colab" data-search-exclude><a href="{html.escape(url)}">'
            f'<img src="{html.escape(badge_url)}" alt="Open In Colab" width="117" height="20"></a> {note}.</p>'
        )


def publish(site: Path, remote: str, branch: str, message: str = "notebooks: the site's build") -> bool:
    """Write every `.ipynb` of the built `site`, at its path in the site, to `branch` of the git
    `remote`, as one commit on top of the branch (or its first): nothing else is in the branch. False
    if the notebooks are already those of the branch (nothing is pushed)."""
    notebooks = sorted(path.relative_to(site) for path in site.rglob("*.ipynb"))
    if not notebooks:
        raise SystemExit(f"no .ipynb in {site}: build the site first")
    with tempfile.TemporaryDirectory(prefix="fieldnotes-colab-") as scratch:
        work = Path(scratch)
        git = lambda *args: subprocess.run(  # noqa: E731
            ["git", "-C", str(work), *args], check=True, capture_output=True, text=True
        ).stdout
        git("init", "--quiet")
        fetched = subprocess.run(
            ["git", "-C", str(work), "fetch", "--quiet", "--depth=1", remote, f"refs/heads/{branch}"],
            capture_output=True,
        )
        if fetched.returncode == 0:
            git("checkout", "--quiet", "-B", branch, "FETCH_HEAD")
            git("rm", "-r", "--quiet", "--ignore-unmatch", ".")
        else:
            git("checkout", "--quiet", "--orphan", branch)
        for notebook in notebooks:
            (work / notebook).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(site / notebook, work / notebook)
        git("add", "--all")
        if fetched.returncode == 0 and not git("status", "--porcelain"):
            return False
        git("-c", "user.name=fieldnotes", "-c", "user.email=fieldnotes@localhost", "commit", "--quiet", "-m", message)
        git("push", "--quiet", remote, f"HEAD:refs/heads/{branch}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fieldnotes.features.colab",
        description="Publish the built site's notebooks to the branch Colab opens them from.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    command = sub.add_parser("publish", help="write every .ipynb of SITE to BRANCH of REMOTE (one commit)")
    command.add_argument("site", type=Path)
    command.add_argument("remote", help="a git remote's URL or path")
    command.add_argument("--branch", default="notebooks")
    args = parser.parse_args(argv)
    pushed = publish(args.site, args.remote, args.branch)
    print(f"{args.branch}: {'published' if pushed else 'unchanged, nothing pushed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
