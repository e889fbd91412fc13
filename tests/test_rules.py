"""The rules page (docs/rules.md): the rules the lessons teach, as predicates checked against torch on random
programs by snippets/rules/rules.py, whose output the build records and drift-guards like any example."""

from __future__ import annotations

import ast
import html
import re
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT, block

RULES_DIR = ROOT / "snippets" / "rules"
RULES_SOURCE = (RULES_DIR / "rules.py").read_text(encoding="utf-8")
SECTION = re.compile(
    r"^[ \t]*--8<-- \[start:rule-(?P<number>\d+)\]\n(?P<words>.*?)^[ \t]*--8<-- \[end:rule-(?P=number)\]",
    re.DOTALL | re.MULTILINE,
)
INCLUDE = re.compile(r'^[ \t]*--8<-- "rules/rules\.py:rule-(?P<number>\d+)"[ \t]*$', re.MULTILINE)
HOLDS = re.compile(
    r"^rule (?P<number>\d+) \((?P<title>.+)\): holds on (?P<programs>\d+) random programs"
    r"( and \d+ written out)? \(\d+ cases\)$"
)

# "a tensor computed from a leaf is never a leaf": false (no_grad, detach, inputs that need no grad).
WRONG_RULE = '''"""A fixture: one true rule, then a false one."""

from _programs import check


def detach_gives_a_leaf(run):
    for step in run.steps:
        if step.line.kind == "detach" and not step.error:
            yield step.after[step.line.target].is_leaf, step.line.code


def computed_from_a_leaf_is_never_a_leaf(run):
    for step in run.steps:
        line = step.line
        if line.kind in ("op", "no_grad") and not step.error and step.before[line.inputs[0]].is_leaf:
            yield not step.after[line.target].is_leaf, line.code


RULES = {"detach() gives a leaf": detach_gives_a_leaf, "never a leaf": computed_from_a_leaf_is_never_a_leaf}

if __name__ == "__main__" and not check(RULES, programs=60):
    raise SystemExit("a rule does not hold: its smallest counterexample is printed above")
'''


def rule_functions() -> list[ast.FunctionDef]:
    """The predicates RULES in rules.py lists, in order, read from its syntax tree (not by running it)."""
    tree = ast.parse(RULES_SOURCE)
    rules = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "RULES")
    listed = [name.id for name in rules.generators[0].iter.elts]
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    return [functions[name] for name in listed]


def rule_words() -> dict[int, str]:
    """Each rule's words, by number: the lines between its section markers, dedented (as a page shows them)."""
    words = {}
    for match in SECTION.finditer(RULES_SOURCE):
        number = int(match["number"])
        assert number not in words, f"two sections rule-{number} in rules.py"
        words[number] = textwrap.dedent(match["words"]).strip()
    return words


def rule_titles() -> list[str]:
    """Each rule's title as the output names it: the bold sentence its words open with, without the
    Markdown (a reader's reading of the words, not rules.py's title())."""
    titles = []
    for number in sorted(rule_words()):
        lead = re.match(r"\*\*(.+?)\.\*\*", rule_words()[number], re.DOTALL)
        assert lead, f"rule {number}'s words do not open with a bold sentence"
        text = " ".join(lead[1].replace("`", "").split())
        titles.append(text[0].lower() + text[1:])
    return titles


def visible_text(markdown_or_html: str) -> str:
    """What a reader sees of a rule's words: no Markdown or HTML, entities read, spaces collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown_or_html)
    text = html.unescape(re.sub(r"<[^>]+>", "", text)).replace("**", "").replace("`", "")
    return " ".join(text.split())


def test_every_rule_is_recorded_as_holding_on_at_least_300_programs():
    """Catches a rule re-recorded while it fails (`make update-outputs` would record the counterexample), a
    rule that applies to too few programs to mean much, and a rule missing from the recorded output."""
    lines = (RULES_DIR / "rules.out").read_text(encoding="utf-8").splitlines()
    titles = rule_titles()
    assert len(lines) == len(titles) >= 12
    for number, (line, title) in enumerate(zip(lines, titles, strict=True), start=1):
        match = HOLDS.match(line)
        assert match, f"snippets/rules/rules.out line {number} is not a 'holds' line: {line}"
        assert (int(match["number"]), match["title"]) == (number, title)
        assert int(match["programs"]) >= 300, f"rule {number} was checked on only {match['programs']} programs"


def programs_module():
    sys.path.insert(0, str(RULES_DIR))
    try:
        import _programs
    finally:
        sys.path.remove(str(RULES_DIR))
    return _programs


PROGRAMS = 1200  # what rules.py checks (read from it below)


def test_the_programs_mix_what_the_rules_are_about():
    """Catches a generator that stopped producing some kind of line (then a rule about it would hold
    vacuously): each construct the rules and issue 20 speak of appears, as code, in the programs the page
    checks. The strings are written here, not taken from _programs.CONSTRUCTS (the code under test)."""
    assert f"check(RULES, programs={PROGRAMS}," in RULES_SOURCE
    _programs = programs_module()
    code = "\n".join(_programs.render(_programs.generate(seed).lines()) for seed in range(PROGRAMS))
    for construct in [
        "requires_grad=True)",
        ".requires_grad_()",
        ".requires_grad_(False)",
        "= torch.randn(2, 3)\n",
        "nn.Parameter(t",
        "with torch.no_grad(): t",
        "= nn.Parameter(torch.randn(2, 3))",
        "nn.Linear(3, 3)",
        "m.eval()",
        ".detach()",
        ".data\n",
        ".data.mul_(2)",
        ".view(-1)",
        ".reshape(",
        "[:]",
        ".transpose(",
        ".chunk(2, 1)",
        ".contiguous()",
        ".clone()",
        ".to(torch.float64)",
        ".long()",
        ".to(torch.int64)",
        ".argmax(",
        " > 0",
        " == t",
        ".nonzero()",
        ".topk(2).indices",
        "torch.zeros_like(t",
        "torch.ones_like(t",
        ".new_zeros(2, 3)",
        "new_ones(2, 3, requires_grad=True)",
        "torch.no_grad(), torch.enable_grad():",
        "torch.no_grad(), torch.set_grad_enabled(True):",
        "torch.set_grad_enabled(False):",
        ".mul_(2)",
        ".add_(t",
        ".retain_grad()",
        ".register_hook(spy(",
        ".register_hook(double(",
        ".grad_fn.register_prehook(",
        ".grad_fn.register_hook(",
        ".register_post_accumulate_grad_hook(",
        ".grad = torch.ones_like(",
        ".grad = None",
        ".grad.zero_()",
        "m.zero_grad()",
        "m.zero_grad(set_to_none=False)",
        "g = t",
        "for _ in range(2): g = t",
        "out.backward(retain_graph=True)\nout.backward()",
        "out.backward(create_graph=True",
        "backward(inputs=[",
        "torch.autograd.grad(",
        "create_graph=True)",
        ".backward(torch.ones_like(",
    ]:
        assert construct in code, f"no program of the {PROGRAMS} contains {construct!r}"


def test_the_rules_page_lists_the_constructs_the_programs_are_drawn_from():
    """Catches the page's list drifting from the constructs the check counts (_programs.CONSTRUCTS, read
    from its syntax tree), and a rule naming a construct that is not among them."""
    tree = ast.parse((RULES_DIR / "_programs.py").read_text(encoding="utf-8"))
    table = next(
        n.value for n in tree.body if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "CONSTRUCTS"
    )
    constructs = [key.value for key in table.keys]
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    listed = page.split("## What the programs are made of", 1)[1].split("\n\n")[2]
    assert [visible_text(item) for item in re.split(r";\s+", listed.rstrip(".\n"))] == constructs
    for function in rule_functions():
        named = ast.get_docstring(function, clean=False).split("It speaks of:\n", 1)
        assert len(named) == 2, f"{function.name}() names no construct it speaks of"
        for line in named[1].splitlines():
            if line.strip().startswith("- "):
                assert line.strip()[2:] in constructs, f"{function.name}() speaks of an unknown {line.strip()!r}"


@pytest.mark.xdist_group("wrong-rule")
def test_a_wrong_rule_fails_the_build_and_shows_its_smallest_counterexample(project):
    """Catches a checker that cannot fail: a false rule, recorded as holding, must fail the strict build,
    and the message must show a small program that breaks it (shrinking works), while the true rule beside
    it still holds."""
    project.snippet("rules/_programs.py", (RULES_DIR / "_programs.py").read_text(encoding="utf-8"))
    recorded = (
        "rule 1 (detach() gives a leaf): holds on 60 random programs (1 cases)\n"
        "rule 2 (never a leaf): holds on 60 random programs (1 cases)\n"
    )
    project.snippet("rules/rules.py", WRONG_RULE, recorded=recorded)
    project.page("index.md", "# Rules\n\n" + block("rules/rules.py"))
    result = project.build()
    assert result.returncode != 0
    log = result.stderr
    assert "snippets/rules/rules.py" in log
    assert re.search(r"\+rule 1 \(detach\(\) gives a leaf\): holds on \d+ random programs", log)
    assert "+rule 2 (never a leaf): FAILS. Smallest counterexample" in log
    shown = re.search(r"\+rule 2 \(never a leaf\): FAILS.*?\n((?:[ \t]*\+    .*\n)+)", log)
    assert shown, log
    program = [line.strip().removeprefix("+").strip() for line in shown[1].splitlines()]
    assert program[-1].startswith("broken: ")
    assert 2 <= len(program) - 1 <= 3, f"not shrunk: {program}"
    assert program[0].startswith("t") and "torch.randn(2, 3)" in program[0]


def test_each_rule_s_words_sit_in_its_own_predicate_s_docstring():
    """Catches words moved away from the check that tests them (into another predicate, or out of any
    docstring), a rule without words, and a rule whose words do not link to its check on rules.md."""
    functions = rule_functions()
    words = rule_words()
    assert sorted(words) == list(range(1, len(functions) + 1)), f"sections {sorted(words)} for {len(functions)} rules"
    for number, function in enumerate(functions, start=1):
        docstring = ast.get_docstring(function, clean=False) or ""
        inside = [int(m["number"]) for m in SECTION.finditer(docstring)]
        assert inside == [number], f"{function.name}() holds the words of rules {inside}, not rule {number}'s"
        assert f"](/rules.md#rule-{number})" in words[number], f"rule {number}'s words do not link to its check"


def test_the_rules_page_and_the_cheat_sheet_show_every_rule_from_its_source():
    """Catches a rule dropped from rules.md or the cheat sheet, and a rule written there by hand again
    (its words would then drift from the predicate's)."""
    for page in ("rules.md", "cheat-sheet.md"):
        markdown = (ROOT / "docs" / page).read_text(encoding="utf-8")
        shown = [int(m["number"]) for m in INCLUDE.finditer(markdown)]
        assert shown == sorted(rule_words()), f"docs/{page} includes rules {shown}"
        for number in shown:
            assert f"### Rule {number}\n" in markdown, f"docs/{page}: rule {number} has no heading (#rule-{number})"


def test_a_rule_s_words_are_shown_as_prose_with_working_links_at_every_depth(project):
    """Catches the include showing a rule's words as something else than its words (a code block, once
    `dedent_subsections` is off and the docstring's indentation reaches the page), and a link in the words
    that works from one folder only (MkDocs' `absolute_links: relative_to_docs` makes /rules.md#rule-4
    relative to each page). A page at the top and one in a folder each include rule 4."""
    project.snippet("rules/rules.py", RULES_SOURCE)
    (project.path / "docs" / "faq").mkdir()
    headings = "".join(f"## Rule {n}\n\ntext\n\n" for n in sorted(rule_words()))
    for page in ("rules.md", "grad-is-none.md", "leaf-vs-intermediate.md", "retain-grad.md", "register-hook.md"):
        project.page(page, f"# {page}\n\n" + (headings if page == "rules.md" else ""))
    project.page("top.md", '# Top\n\n--8<-- "rules/rules.py:rule-4"\n')
    project.page("faq/deep.md", '# Deep\n\n--8<-- "rules/rules.py:rule-4"\n')
    result = project.build()
    assert result.returncode == 0, result.stderr
    expected = visible_text(rule_words()[4])
    for page, to_rules in (("top", "../rules/#rule-4"), ("faq/deep", "../../rules/#rule-4")):
        written = (project.path / "site" / page / "index.html").read_text(encoding="utf-8")
        article = written[written.index("<article") : written.index("</article>")]
        outside_code = re.sub(r"<pre.*?</pre>", "", article, flags=re.DOTALL)
        assert expected in visible_text(outside_code), f"{page}: rule 4's words are not shown as prose"
        assert f'href="{to_rules}"' in article, f"{page}: the link to rule 4's check is not {to_rules}"


# Speaks of chunk(), but checks only programs without it: the check must call that an error, not a pass.
UNTRIED_RULE = '''"""A fixture: a true rule whose words speak of a construct no program it checks has."""

from _programs import check


def detach_gives_a_leaf(run):
    """**detach() gives a leaf.**

    It speaks of:
    - chunk()
    """
    if any(".chunk(" in step.line.code for step in run.steps):
        return
    for step in run.steps:
        if step.line.kind == "detach" and not step.error:
            yield step.after[step.line.target].is_leaf, step.line.code


detach_gives_a_leaf.constructs = ("chunk()",)
RULES = {"detach() gives a leaf": detach_gives_a_leaf}

if __name__ == "__main__" and not check(RULES, programs=60):
    raise SystemExit("a rule does not hold")
'''


@pytest.mark.xdist_group("wrong-rule")
def test_a_rule_whose_construct_no_program_exercised_fails_the_build(project):
    """Catches a check that passes a rule on programs that never tried what its words speak of: the rule
    holds on every program it checked, but none of them has chunk(), so the build must fail and say so."""
    project.snippet("rules/_programs.py", (RULES_DIR / "_programs.py").read_text(encoding="utf-8"))
    recorded = "rule 1 (detach() gives a leaf): holds on 60 random programs (1 cases)\n"
    project.snippet("rules/rules.py", UNTRIED_RULE, recorded=recorded)
    project.page("index.md", "# Rules\n\n" + block("rules/rules.py"))
    result = project.build()
    assert result.returncode != 0
    assert "+rule 1 (detach() gives a leaf): FAILS. No program it checked has: chunk()" in result.stderr, result.stderr


def words_of_pages() -> dict[str, list[str]]:
    """Each page's Markdown, the rule includes taken out, as a reader's words (lower case, no Markdown)."""
    pages = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = INCLUDE.sub("", page.read_text(encoding="utf-8"))
        pages[page.relative_to(ROOT).as_posix()] = re.findall(r"[\w.()'=<>-]+", visible_text(text).lower())
    return pages


RUN = 9  # words in a row that make a restatement, not a shared phrase


def test_no_page_states_a_rule_in_its_own_words():
    """Catches a rule restated on a page instead of included from rules.py (a copy or a close paraphrase
    drifts from the check): no page's own text repeats RUN words in a row of a rule's words. The words'
    link texts are left out (they are other pages' headings, which pages may quote)."""
    pages = words_of_pages()
    found = []
    for number, words in rule_words().items():
        without_links = re.sub(r"\[[^\]]*\]\([^)]*\)", "", words)
        tokens = re.findall(r"[\w.()'=<>-]+", visible_text(without_links).lower())
        runs = {tuple(tokens[i : i + RUN]) for i in range(len(tokens) - RUN + 1)}
        for page, own in pages.items():
            hits = {" ".join(own[i : i + RUN]) for i in range(len(own) - RUN + 1) if tuple(own[i : i + RUN]) in runs}
            found += [f"{page} restates rule {number}: ...{hit}..." for hit in sorted(hits)[:1]]
    assert not found, "\n".join(found)


def test_every_shown_rule_statement_is_its_source_s_words(built_site):
    """Catches a page that shows a rule other than through the include (its text would differ from the
    predicate's words) and an include that renders something else: wherever the built site shows the bold
    title of a rule, the whole of that rule's words follows it, as prose."""
    words = rule_words()
    titles = {n: visible_text(re.match(r"\*\*(.+?)\*\*", text, re.DOTALL)[1]) for n, text in words.items()}
    expected = {n: visible_text(text) for n, text in words.items()}
    shown = 0
    for page in sorted(built_site.rglob("*.html")):
        written = page.read_text(encoding="utf-8")
        if "<article" not in written:
            continue
        article = written[written.index("<article") : written.index("</article>")]
        for paragraph in re.findall(r"<p>(.*?)</p>", re.sub(r"<pre.*?</pre>", "", article, flags=re.DOTALL), re.DOTALL):
            text = visible_text(paragraph)
            for number, title in titles.items():
                if text.startswith(title):
                    shown += 1
                    assert text == expected[number], f"{page.relative_to(built_site)}: rule {number} shown as {text!r}"
    assert shown >= 2 * len(titles), "the rules page and the cheat sheet no longer show every rule"


WORDS = 80  # a rule's statement, at most, as a reader counts it on the page


def test_every_rule_is_at_most_80_words_as_the_page_shows_it(built_site):
    """Catches a rule grown long again (rule 1 once took 203 words, rule 9 230; issue 42 counted rule 2 at
    82 and rule 9 at 81), as a hand-written list of exceptions does: on the built rules page, each rule's
    paragraph (from its bold title to its closing link), as a reader sees it, links and all, is at most 80
    words. Titles are found in the HTML, not read from rules.py."""
    page = (built_site / "rules" / "index.html").read_text(encoding="utf-8")
    article = re.sub(r"<pre.*?</pre>", "", page[page.index("<article") : page.index("</article>")], flags=re.DOTALL)
    rules = [
        visible_text(p)
        for p in re.findall(r"<p>(<strong>.*?)</p>", article, re.DOTALL)
        if re.search(r"[Rr]ule \d+,\s+checked</a>\.$", p.strip())
    ]
    assert len(rules) >= 12, f"the rules page shows {len(rules)} rules"
    long = {text[:40]: len(text.split()) for text in rules if len(text.split()) > WORDS}
    assert not long, long


def test_the_written_programs_break_rule_4_s_old_words():
    """Catches WRITTEN (rules.py) losing rule 4's corner cases, which random programs rarely draw (issue
    42): on them, a predicate that says what the old words said (a leaf view that reads
    `requires_grad=True` gets a `.grad` unless taken with grad mode off; with `inputs=`, no `retain_grad()`
    tensor beyond the listed ones gets one, Split's other output included) fails against torch, each
    program on its own."""
    _programs = programs_module()
    sys.path.insert(0, str(RULES_DIR))
    try:
        import rules
    finally:
        sys.path.remove(str(RULES_DIR))

    def old_words(run):
        for step in run.steps:
            if step.line.kind != "backward" or step.error:
                continue
            listed = [step.before[n].tensor for n in step.line.inputs[1:]]
            for name, f in step.before.items():
                new = step.after[name]
                if f.is_leaf and f.requires_grad and not listed:
                    yield new.grad is not None, f"{name}: a leaf requiring grad got no .grad"
                elif listed and f.retains_grad and not any(f.tensor is t for t in listed):
                    beyond = any(f.grad_fn is t.grad_fn for t in listed)  # the listed one's node, not between
                    yield not beyond or new.grad is None, f"{name}: beyond the listed one, got a .grad"

    passes = [p for p in rules.WRITTEN if any(line.kind == "backward" for line in p)]
    assert len(passes) >= 2
    for program in passes:
        run = _programs.run_lines(program, 0)
        assert _programs.failures(old_words, run), _programs.render(program)


def test_the_written_programs_break_rule_5_s_old_words():
    """Catches WRITTEN (rules.py) losing rule 5's corner case, which random programs rarely draw (issue 42,
    reader): a predicate that says what the old words said (a `retain_grad()` tensor gets a `.grad` only
    if it 'lies between the output and one of the inputs (both ends included)') fails against torch on
    it: `autograd.grad(out, [t2])` with `t2, t3 = t1.chunk(2, 1)` fills `t3.grad`, though `t3` is not
    between `out` and `t2`, because the pass stops at `SplitBackward0`, which `t3` shares."""
    _programs = programs_module()
    sys.path.insert(0, str(RULES_DIR))
    try:
        import rules
    finally:
        sys.path.remove(str(RULES_DIR))

    def between(step, name) -> bool:
        """The tensor is an end, or a gradient from it reaches an input's entry (edges, not nodes)."""
        ends = [step.entries[n] for n in step.line.inputs]
        reached = _programs._edges(step.entries[name])
        return step.entries[name] in ends or any(end in reached for end in ends[1:])

    def old_words(run):
        for step in run.steps:
            if step.line.kind != "grad" or step.error:
                continue
            for name, f in step.before.items():
                if f.retains_grad and not between(step, name):
                    yield step.after[name].grad is None, f"{name}: not between, got a .grad"

    grads = [p for p in rules.WRITTEN if any(line.kind == "grad" for line in p)]
    assert grads
    for program in grads:
        run = _programs.run_lines(program, 0)
        assert _programs.failures(old_words, run), _programs.render(program)


OPERATORS = RULES_DIR / "operators.py"
OPERATORS_OUT = RULES_DIR / "operators.out"
# What snippets/rules/_op_db.py reads of torch's operator database, written here, not read from _op_db.py.
OP_DB_NAMES = {
    "common_methods_invocations.py": [
        r"^op_db: list\[OpInfo\] = ",
        r"^from torch.testing._internal.opinfo.core import",
    ],
    "opinfo/core.py": [
        r"^class OpInfo:",
        r"^class SampleInput:",
        r"^    name: str$",
        r'^    variant_test_name: str = ""$',
        r"^    sample_inputs_func: Callable = None$",
        # how the sweep calls it: (entry, device, dtype, requires_grad)
        r"self\.sample_inputs_func\(self, device, dtype, requires_grad",
        r"^    def supported_dtypes\(self, device_type\):",
        r"^        self\.inplace_variant = ",
        r"^    def __call__\(self, \*args, \*\*kwargs\):",
        r"^        self\.input = input$",
        r"^    op: Callable = None$",
        r"^        self\.args = args if args is not None else ",
        r"^        self\.kwargs = kwargs if kwargs is not None else ",
    ],
}
# The attributes _op_db.py may use of an entry (`entry.`) and of a sample (`sample.`): those checked above.
ENTRY_ATTRIBUTES = {"name", "variant_test_name", "sample_inputs_func", "supported_dtypes", "inplace_variant", "op"}
SAMPLE_ATTRIBUTES = {"input", "args", "kwargs"}


def test_the_sweep_uses_only_what_the_installed_torch_s_op_db_defines():
    """Catches a torch whose operator database renamed or dropped what the sweep reads (op_db, an OpInfo's
    name, variant_test_name, sample_inputs_func, supported_dtypes, inplace_variant, calling it; a
    SampleInput's input, args, kwargs), read from the installed torch's source; and a sweep that reads an
    attribute this test does not check. Edit `sample_inputs_func` out of core.py's text (or add
    `entry.foo` to _op_db.py) to see it fail."""
    import torch

    root = Path(torch.__file__).parent / "testing" / "_internal"
    for name, patterns in OP_DB_NAMES.items():
        source = (root / name).read_text(encoding="utf-8")
        for pattern in patterns:
            assert re.search(pattern, source, re.MULTILINE), f"torch {torch.__version__}'s {name} lacks {pattern}"
    sweep = (RULES_DIR / "_op_db.py").read_text(encoding="utf-8")
    used = re.findall(r"\bentry\.(\w+)", sweep) + re.findall(r'getattr\(entry, "(\w+)"', sweep)
    assert set(used) <= ENTRY_ATTRIBUTES, set(used) - ENTRY_ATTRIBUTES
    assert set(re.findall(r"\bsample\.(\w+)", sweep)) <= SAMPLE_ATTRIBUTES
    assert "from torch.testing._internal import common_methods_invocations" in sweep
    assert "common_methods_invocations.op_db" in sweep


def test_the_operator_check_is_recorded_over_at_least_600_operators_and_fits_a_phone():
    """Catches the sweep recorded while it fails or over too few entries (a torch whose samples stopped
    running, a filter that drops most of op_db), a list printed as one long line, and the rules page no
    longer showing the operator check."""
    out = OPERATORS_OUT.read_text(encoding="utf-8")
    assert "FAILS" not in out
    assert int(re.search(r"^entries, (\d+) of them operators with", out, re.MULTILINE)[1]) >= 600
    for number in (1, 2, 9):
        checked = re.search(rf"^rule {number} holds on (\d+) operators, (\d+)\n?\s*samples", out, re.MULTILINE)
        assert checked, f"operators.out does not say on how many operators rule {number} holds"
    rule_1 = int(re.search(r"^rule 1 holds on (\d+) operators", out, re.MULTILINE)[1])
    assert rule_1 >= 600
    assert max(len(line) for line in out.splitlines()) <= 41
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert '--8<-- "rules/operators.py"' in page and "{ #operators }" in page and "`op_db`" in page
