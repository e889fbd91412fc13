"""The API index (fieldnotes/torch/api_index.py): a page, generated at build time from the examples' code, of
every torch name they use, each linking the examples (page and anchor) and PyTorch's documentation.

- A fixture project's index follows its examples: a snippet added to a page appears under the names it
  uses, one removed disappears (the build reads the code; nothing is typed by hand).
- How a use is attributed, on small code with hand-written expectations.
- The documentation addresses, by rule, on names checked by hand against PyTorch's documentation
  sources (docs/source/tensors.md, autograd.md, nn.md, torch.md of pytorch/pytorch).
- The real site's index is in the navigation, has the names its lessons teach, and its links land on
  an element with that id.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

from fieldnotes.cache import Store
from fieldnotes.jobs import Scheduler
from fieldnotes.torch.api_index import read_uses, torch_facts
from fieldnotes.torch.api_page import official_url
from tests.conftest import ROOT, Project, block

pytestmark = pytest.mark.xdist_group("api-index")  # the fixture project's builds serve every test here


class _Index(HTMLParser):
    """The built index page: entry name -> the hrefs listed under it (its documentation link first)."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[str, list[str]] = {}
        self._current: str | None = None
        self._in_h3 = False
        self._documentation: str | None = None  # the heading's own link

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "h3":
            self._in_h3, self._current = True, ""
        elif tag == "h2":
            self._current = None
        elif tag == "a" and self._in_h3 and "headerlink" not in (attributes.get("class") or ""):
            self._documentation = attributes.get("href")
        elif tag == "a" and self._current and not self._in_h3 and "href" in attributes:
            self.entries[self._current].append(attributes["href"])

    def handle_endtag(self, tag):
        if tag == "h3":
            self._in_h3 = False
            self.entries[self._current] = [self._documentation] if self._documentation else []
            self._documentation = None

    def handle_data(self, data):
        if self._in_h3:
            self._current += data.replace("¶", "").strip()


def index_of(site: Path) -> dict[str, list[str]]:
    parser = _Index()
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    parser.feed(page[page.index("<article") : page.index("</article>")])
    return parser.entries


def ids_of(page: Path) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------------
# A project's index follows its examples

LEAF = "import torch\n\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ny.retain_grad()\ny.sum().backward()\n"
MODULE = (
    "from torch import nn\n\nlayer = nn.Linear(2, 2)\n"
    "layer.register_full_backward_hook(lambda module, grad_in, grad_out: None)\n"
)
HOOKED = "import torch as t\n\na = t.tensor(1.0, requires_grad=True)\na.register_hook(print)\n"


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The project built four times: two examples; a third added; the second removed from its page; the
    third's code edited (each build reuses the cache the ones before it filled)."""
    project = Project(tmp_path_factory.mktemp("api-index"))
    project.feature("api_index", enabled=True)
    # The index reads code, running it adds nothing here; reuse on, as the edited step tests it.
    project.set_option("fieldnotes", execute=False, cache=True)
    project.snippet("demo/leaf.py", LEAF, recorded="")
    project.snippet("demo/module.py", MODULE, recorded="")
    project.snippet("demo/hooked.py", HOOKED, recorded="")
    project.pages = ["index.md", "api.md"]  # the nav: api.md is generated
    sites = {}
    for step, snippets in (
        ("two", ["leaf", "module"]),
        ("added", ["leaf", "module", "hooked"]),
        ("removed", ["leaf", "hooked"]),
        ("edited", ["leaf", "hooked"]),
    ):
        if step == "edited":
            project.snippet("demo/hooked.py", HOOKED + "a.detach()\n", recorded="")
        page = "# Demo\n\n" + "\n".join(block(f"demo/{s}.py") for s in snippets)
        (project.path / "docs" / "index.md").write_text(page)
        result = project.build()
        assert result.returncode == 0, result.stderr
        sites[step] = index_of(project.path / "site"), ids_of(project.path / "site" / "index.html")
    return sites


def test_each_name_lists_the_examples_that_use_it(builds):
    entries, ids = builds["two"]
    assert entries["Tensor.retain_grad"][1:] == ["../#ex-demo-leaf"]
    assert entries["nn.Module.register_full_backward_hook"][1:] == ["../#ex-demo-module"]
    assert entries["torch.nn.Linear"][1:] == ["../#ex-demo-module"]
    assert entries["Tensor.backward"][1:] == ["../#ex-demo-leaf"]
    assert "Tensor.register_hook" not in entries
    assert {"ex-demo-leaf", "ex-demo-module"} <= ids  # the anchors are on the page


def test_an_added_example_appears_under_its_names(builds):
    entries, ids = builds["added"]
    assert entries["Tensor.register_hook"][1:] == ["../#ex-demo-hooked"]  # `import torch as t` resolved
    assert entries["torch.tensor"][1:] == ["../#ex-demo-hooked"]
    assert "ex-demo-hooked" in ids


def test_a_removed_example_disappears(builds):
    entries, _ = builds["removed"]
    assert "nn.Module.register_full_backward_hook" not in entries
    assert "torch.nn.Linear" not in entries
    assert entries["Tensor.retain_grad"][1:] == ["../#ex-demo-leaf"]


def test_an_edited_example_is_read_again(builds):
    """Catches an index reused while an example's code changed (kept by its pages and snippet names)."""
    entries, _ = builds["edited"]
    assert "Tensor.detach" not in builds["removed"][0]
    assert entries["Tensor.detach"][1:] == ["../#ex-demo-hooked"]


def test_each_entry_links_its_documentation_first(builds):
    entries, _ = builds["added"]
    assert (
        entries["Tensor.retain_grad"][0]
        == "https://docs.pytorch.org/docs/stable/generated/torch.Tensor.retain_grad.html"
    )


# --------------------------------------------------------------------------------------------------
# Attribution, on small code


def attributed(code: str) -> tuple[set[str], set[tuple[str, str | None]]]:
    first = read_uses(code)
    facts = torch_facts(Store(ROOT), Scheduler(ROOT), first.paths, {a for a, _ in first.attributes})
    uses = read_uses(code, facts)
    return uses.paths, uses.attributes


def test_torch_is_asked_in_a_run_of_the_scheduler(tmp_path):
    """Catches the API index asking torch outside the build's scheduler (a `python -c` of its own, which
    imports torch once more beside the fork server), or in the build's own process."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from fieldnotes.cache import Store\n"
        "from fieldnotes.torch.api_index import torch_facts\n"
        "from fieldnotes.jobs import Scheduler\n"
        "class Counting(Scheduler):\n"
        "    calls = 0\n"
        "    def submit_call(self, work):\n"
        "        Counting.calls += 1\n"
        "        return super().submit_call(work)\n"
        "if __name__ == '__main__':\n"
        "    facts = torch_facts(Store(Path(sys.argv[1]), reuse=False), Counting(Path(sys.argv[1])),\n"
        "                        {'torch.ones'}, {'retain_grad'})\n"
        "    assert facts.paths['torch.ones']['returns'] == 'torch.Tensor', facts.paths\n"
        "    assert 'retain_grad' in facts.classes['torch.Tensor'], facts.classes\n"
        "    assert Counting.calls == 1, Counting.calls\n"
        "    assert 'torch' not in sys.modules, 'the build process imported torch'\n"
    )
    (tmp_path / "ask.py").write_text(code)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "ask.py"), str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        pytest.fail(done.stderr[-3000:], pytrace=False)


def test_imports_resolve_through_every_alias():
    paths, _ = attributed(
        "import torch.nn as nn\nfrom torch import nn as tnn\nfrom torch.autograd import grad\n"
        "import torch.nn.functional as F\n"
        "nn.ReLU()\ntnn.Linear(1, 1)\ngrad\nF.mse_loss\n"
    )
    assert paths == {"torch.nn.ReLU", "torch.nn.Linear", "torch.autograd.grad", "torch.nn.functional.mse_loss"}


def test_a_receiver_is_known_from_what_the_code_assigns():
    _, attributes = attributed(
        "import torch\nfrom torch import nn\n"
        "w = torch.randn(3)\nw.requires_grad_()\n"  # a tensor: torch.randn returns one
        "model = nn.Linear(2, 2)\nmodel.requires_grad_(False)\n"  # a module
        "for p in model.parameters():\n    p.register_hook(print)\n"  # a parameter: a tensor
        "h = w.register_hook(print)\nh.remove()\n"  # a hook's handle
        "names = []\nnames.append(w.grad_fn.name())\n"  # autograd's Node; `append` is a list's
        "def f(x):\n    return x.to('cpu')\n"  # unknown: a tensor's or a module's
    )
    assert attributes >= {
        ("requires_grad_", "torch.Tensor"),
        ("requires_grad_", "torch.nn.Module"),
        ("register_hook", "torch.Tensor"),
        ("remove", "torch.utils.hooks.RemovableHandle"),
        ("name", "torch.autograd.graph.Node"),
        ("to", None),
    }


def test_names_of_other_modules_are_not_torch_names():
    paths, attributes = attributed("import math\nimport warnings\nmath.exp(1.0)\nwarnings.warn('x')\n")
    assert paths == set() and attributes == set()


# --------------------------------------------------------------------------------------------------
# Documentation addresses

DOCS = "https://docs.pytorch.org/docs/stable/"


@pytest.mark.parametrize(
    ("name", "documented", "url"),
    [
        ("Tensor.retain_grad", True, f"{DOCS}generated/torch.Tensor.retain_grad.html"),
        (
            "Tensor.register_post_accumulate_grad_hook",
            True,
            f"{DOCS}generated/torch.Tensor.register_post_accumulate_grad_hook.html",
        ),
        ("Tensor.grad_fn", False, None),  # not in tensors.md's list, and without a docstring
        ("torch.autograd.grad", True, f"{DOCS}generated/torch.autograd.grad.html"),
        ("torch.no_grad", True, f"{DOCS}generated/torch.no_grad.html"),
        (
            "torch.autograd.graph.Node.next_functions",
            True,
            f"{DOCS}generated/torch.autograd.graph.Node.next_functions.html",
        ),
        (
            "nn.Module.register_full_backward_hook",
            True,
            f"{DOCS}generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook",
        ),
        ("torch.nn.Parameter", True, f"{DOCS}generated/torch.nn.parameter.Parameter.html"),
        ("torch.nn.init.normal_", True, f"{DOCS}nn.init.html#torch.nn.init.normal_"),
        ("torch._dynamo.config.skip_nnmodule_hook_guards", False, None),
        ("torch.utils.hooks.RemovableHandle.remove", True, None),
    ],
)
def test_documentation_address_by_rule(name, documented, url):
    assert official_url(name, documented) == url


# --------------------------------------------------------------------------------------------------
# The real site's index

TAUGHT = [
    "Tensor.retain_grad",
    "Tensor.register_hook",
    "Tensor.is_leaf",
    "Tensor.grad_fn",
    "Tensor.detach",
    "torch.autograd.grad",
    "Tensor.register_post_accumulate_grad_hook",
    "nn.Module.register_full_backward_hook",
    "torch.no_grad",
]


def test_real_index_is_in_the_nav_and_lists_what_the_lessons_teach(built_site):
    nav = yaml_load((ROOT / "mkdocs.yml").read_text())["nav"]
    assert any(isinstance(item, dict) and "api.md" in item.values() for item in nav)
    entries = index_of(built_site)
    assert [name for name in TAUGHT if name not in entries] == []
    hooks_page = [h for h in entries["Tensor.register_hook"] if h.startswith("../register-hook/#")]
    assert "../register-hook/#ex-hooks-seed" in hooks_page


def test_real_index_links_land_on_an_element_with_that_id(built_site):
    entries = index_of(built_site)
    ids: dict[str, set[str]] = {}
    for hrefs in entries.values():
        for href in hrefs[1:] if hrefs and hrefs[0].startswith("http") else hrefs:
            page, _, fragment = href.partition("#")
            target = (built_site / "api" / page / "index.html").resolve()
            if target not in ids:
                ids[target] = ids_of(target)
            assert fragment in ids[target], href
