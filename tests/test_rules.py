"""The rules page (docs/rules.md): the rules the lessons teach, as predicates checked against torch on random
programs by snippets/rules/rules.py, whose output the build records and drift-guards like any example."""

from __future__ import annotations

import ast
import html
import re
import sys
import textwrap

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
    r"^rule (?P<number>\d+) \((?P<title>.+)\): holds on (?P<programs>\d+) random programs \(\d+ cases\)$"
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


def test_every_rule_is_recorded_as_holding_on_at_least_200_programs():
    """Catches a rule re-recorded while it fails (`make update-outputs` would record the counterexample), a
    rule that applies to too few programs to mean much, and a rule missing from the recorded output."""
    lines = (RULES_DIR / "rules.out").read_text(encoding="utf-8").splitlines()
    titles = rule_titles()
    assert len(lines) == len(titles) >= 9
    for number, (line, title) in enumerate(zip(lines, titles, strict=True), start=1):
        match = HOLDS.match(line)
        assert match, f"snippets/rules/rules.out line {number} is not a 'holds' line: {line}"
        assert (int(match["number"]), match["title"]) == (number, title)
        assert int(match["programs"]) >= 200, f"rule {number} was checked on only {match['programs']} programs"


def test_the_programs_mix_what_the_rules_are_about():
    """Catches a generator that stopped producing some kind of line (then a rule about it would hold
    vacuously): each construct the rules speak of appears in the programs the page checks."""
    sys.path.insert(0, str(RULES_DIR))
    try:
        import _programs
    finally:
        sys.path.remove(str(RULES_DIR))
    code = "\n".join(_programs.render(_programs.generate(seed).lines()) for seed in range(300))
    for construct in [
        "requires_grad=True)",
        ".requires_grad_()",
        "= torch.randn(2, 3)\n",
        "nn.Parameter(t",
        ".detach()",
        "with torch.no_grad():",
        ".view(-1)",
        ".reshape(",
        "[:]",
        ".transpose(",
        ".contiguous()",
        ".clone()",
        ".to(torch.float64)",
        " > 0",
        ".mul_(2)",
        ".add_(t",
        ".retain_grad()",
        ".register_hook(spy(",
        ".register_hook(double(",
        ".grad_fn.register_prehook(",
        ".grad_fn.register_hook(",
        ".register_post_accumulate_grad_hook(",
        "out.backward(retain_graph=True)\nout.backward()",
        "torch.autograd.grad(",
        ".backward(torch.ones_like(",
    ]:
        assert construct in code, f"no program of the first 300 contains {construct!r}"


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
    result = project.build(timeout=300)
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
    result = project.build(timeout=120)
    assert result.returncode == 0, result.stderr
    expected = visible_text(rule_words()[4])
    for page, to_rules in (("top", "../rules/#rule-4"), ("faq/deep", "../../rules/#rule-4")):
        written = (project.path / "site" / page / "index.html").read_text(encoding="utf-8")
        article = written[written.index("<article") : written.index("</article>")]
        outside_code = re.sub(r"<pre.*?</pre>", "", article, flags=re.DOTALL)
        assert expected in visible_text(outside_code), f"{page}: rule 4's words are not shown as prose"
        assert f'href="{to_rules}"' in article, f"{page}: the link to rule 4's check is not {to_rules}"
