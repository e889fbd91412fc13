"""Every page, in the light and the dark scheme, on a desktop and on a phone; and the scheme toggle.

Each page test reads the page's one visit in its configuration (page_visit.py) and checks it loaded
cleanly: HTTP 200, zero console errors, zero uncaught page errors, zero requests to any host but
127.0.0.1 (recorded; Chromium fails them), also after scrolling to the end. Then it checks the scheme is applied
(the body's scheme and a light or dark background).

With SCREENSHOTS=1, every page is screenshotted (full page) in both schemes at 1280 px and at 375 px
into test-artifacts/screenshots/<page>-<light|dark>-<desktop|phone>.jpg, for a reviewer to look at.

Accessibility: axe-core (axe-playwright-python) must find no violation of any impact, on every page,
in both schemes, at desktop width, and must have evaluated the page (rules that need its content
pass). The theme ships violations that docs/stylesheets/site.css and
overrides/ fix: `link-in-text-block`, `color-contrast` (footer copyright; code token colours just
under 4.5:1), `aria-dialog-name` (search dialog), `landmark-unique` (a <nav> per code block).

Speed: axe's colour-contrast check costs time per element, and the site repeats a few hundred text
styles over tens of thousands of elements (code tokens, navigation links, table cells), most of them
on every page (the header, the navigation). Colour contrast runs on its own, after the other rules:
before it, every element whose text style (colour, font, decoration, the parent's colour) and
backdrop (the backgrounds, opacities and filters of it and its ancestors) already appeared on a
visible element, earlier on the page or on a page audited before in the same scheme, is excluded,
where all it holds is excluded too; the page's h1 never is, so that every audit checks some text. So
each distinct text style is still checked, once per scheme, at a fraction of the time; the other rules
see every element of every page.
"""

from __future__ import annotations

from browser_site import AXE_URL_PATH, PHONE, WIDTHS, page_id, site_pages
from page_visit import by_configuration, record_visit

SCHEMES = {"light": "default", "dark": "slate"}
# Rules that pass on every page of the site only if axe audited its content.
EVALUATED_RULES = {"color-contrast", "document-title", "html-has-lang", "page-has-heading-one", "landmark-one-main"}

MARK_REPEATED_STYLES = """(checked) => {
  const styles = new Map();
  const style = el => {
    if (!styles.has(el)) styles.set(el, getComputedStyle(el));
    return styles.get(el);
  };
  const backdrops = new Map();
  const backdrop = el => {
    if (!el) return "";
    if (!backdrops.has(el)) {
      const s = style(el);
      backdrops.set(el, [s.backgroundColor, s.backgroundImage, s.opacity, s.filter, s.mixBlendMode, s.position,
                         s.zIndex].join(",") + "<" + backdrop(el.parentElement));
    }
    return backdrops.get(el);
  };
  const elements = [...document.body.querySelectorAll("*")];
  const heading = document.querySelector("h1");
  const seen = new Set(checked);
  const repeated = new Set();
  for (const el of elements) {
    const s = style(el);
    const key = [el.tagName, el.className, s.color, s.fontSize, s.fontWeight, s.textShadow, s.textDecorationLine,
                 s.webkitTextStrokeWidth, style(el.parentElement).color, backdrop(el)].join("|");
    if (seen.has(key)) {
      if (el !== heading) repeated.add(el);
    }
    // A hidden element is not checked: it cannot stand for the ones that follow.
    else if (el.checkVisibility({opacityProperty: true, visibilityProperty: true})) seen.add(key);
  }
  const whole = new Set();  // repeated, and so is everything it holds (children come later in `elements`)
  for (const el of elements.reverse()) {
    if (repeated.has(el) && [...el.children].every(child => whole.has(child))) whole.add(el);
  }
  for (const el of whole) {
    if (!whole.has(el.parentElement)) el.setAttribute("data-axe-repeated-style", "");
  }
  return [...seen];
}"""

# The widest elements poking out of the viewport, outside the containers that are meant to scroll.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => el.closest("pre, code, .md-typeset__scrollwrap, .md-typeset__table, .tabbed-set");
  return [...document.body.querySelectorAll("*")]
    .filter(el => el.getBoundingClientRect().right > width + 1 && !scrolls(el))
    .slice(0, 10)
    .map(el => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`
      + ` right=${Math.round(el.getBoundingClientRect().right)}`);
}"""


def screenshot(page, path) -> None:
    # Full page; JPEG at quality 90 takes half the time of a PNG and looks the same to a reviewer.
    page.screenshot(path=path, full_page=True, type="jpeg", quality=90)


# The audit, in one round trip: axe-core loaded from the test server (its <script> removed again once
# run, so that axe audits the page as it was); every rule but colour contrast run on the whole page,
# then colour contrast once per text style not in `checked` (MARK_REPEATED_STYLES), with
# axe-playwright-python's default options: only violations list all their elements, since only the
# ids of the rules that passed are read. It returns the text styles checked so far.
AUDIT = (
    """async ({url, checked}) => {
  await new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.onload = () => { script.remove(); resolve(); };
    script.onerror = () => reject(new Error(`axe-core did not load from ${url}`));
    document.head.append(script);
  });
  const options = {resultTypes: ["violations"]};
  const rest = await axe.run(document, {...options, rules: {"color-contrast": {enabled: false}}});
  const styles = ("""
    + MARK_REPEATED_STYLES
    + """)(checked);
  const contrast = await axe.run({exclude: [["[data-axe-repeated-style]"]]},
                                 {...options, runOnly: {type: "rule", values: ["color-contrast"]}});
  return {violations: [...rest.violations, ...contrast.violations], passes: [...rest.passes, ...contrast.passes],
          styles};
}"""
)


def audit(page, checked: set[str] | None = None) -> dict:
    """axe's violations and passes on the page; the text styles of `checked` (a set, updated with the
    page's) are not checked for contrast again."""
    results = page.evaluate(AUDIT, {"url": AXE_URL_PATH, "checked": sorted(checked or ())})
    if checked is not None:
        checked.update(results["styles"])
    return results


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}, {violation['helpUrl']}")
        for node in violation["nodes"][:5]:
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"    {', '.join(map(str, node['target']))}: {summary[:300]}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    ... and {len(violation['nodes']) - 5} more")
    return "\n".join(lines)


# The body's scheme and its background colour, read in one round trip.
SCHEME_AND_BACKGROUND = (
    "() => [document.body.getAttribute('data-md-color-scheme'),"
    " getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).slice(0, 3).map(Number)]"
)


def scheme_and_luminance(page) -> tuple[str | None, float]:
    attribute, rgb = page.evaluate(SCHEME_AND_BACKGROUND)
    luminance = sum(weight * value / 255 for weight, value in zip((0.2126, 0.7152, 0.0722), rgb, strict=True))
    return attribute, luminance


def check_scheme(site_page: str, scheme: str, attribute: str | None, luminance: float) -> None:
    assert attribute == SCHEMES[scheme], f"{site_page}: the body's scheme is {attribute!r}, not {SCHEMES[scheme]!r}"
    if scheme == "light":
        assert luminance > 0.8, f"{site_page}: light scheme, but the background is dark ({luminance:.2f})"
    else:
        assert luminance < 0.2, f"{site_page}: dark scheme, but the background is light ({luminance:.2f})"


def assert_scheme(page, site_page: str, scheme: str) -> None:
    check_scheme(site_page, scheme, *scheme_and_luminance(page))


def loaded_cleanly(visit) -> None:
    """The visit loaded the page cleanly: HTTP 200, no console error, no uncaught error, no request to
    another host (the Guard), also once scrolled to the end, and in the scheme asked for. Catches a page
    that is not offline (the theme's Google Fonts with `font: false` removed, a script from a CDN)."""
    status = visit.get("status")
    assert status == 200, f"{visit.site_page}: HTTP {status}"
    visit.check_guard()
    check_scheme(visit.site_page, visit.scheme, *visit.get("scheme"))
    if "screenshot" in visit.results or "screenshot" in visit.errors:
        visit.get("screenshot")


@by_configuration("scheme", SCHEMES, width="desktop")
def test_page_on_desktop(page_visit, site_page, scheme):
    """At 1280 px: loads cleanly, renders in the scheme, and axe finds no violation."""
    visit = page_visit(site_page, "desktop", scheme)
    loaded_cleanly(visit)
    results = visit.get("axe")
    violations = results["violations"]
    assert not violations, f"{site_page} ({scheme}): axe violations:\n{describe(violations)}"
    # No violation is only news if axe looked: catches an audit that ran on an empty document, on nothing
    # (all excluded), or not at all. These rules pass only on a real page with text and a heading.
    passed = {rule["id"] for rule in results["passes"]}
    assert EVALUATED_RULES <= passed, f"{site_page} ({scheme}): axe did not evaluate {EVALUATED_RULES - passed}"


@by_configuration("scheme", SCHEMES, width="phone")
def test_page_on_phone(page_visit, site_page, scheme):
    """At 375 px: loads cleanly, renders in the scheme, and the page does not scroll sideways."""
    visit = page_visit(site_page, "phone", scheme)
    loaded_cleanly(visit)
    scroll_width, client_width, overflowing = visit.get("page width")
    assert scroll_width <= client_width, (
        f"{site_page} ({scheme}) at {PHONE['width']} px: the page is {scroll_width} px wide, "
        f"the viewport {client_width} px. Overflowing: {overflowing}"
    )


def test_screenshots_are_one_file_per_page_and_configuration(new_guarded_page, built_site, tmp_path):
    """With SCREENSHOTS=1 each visit saves test-artifacts/screenshots/<page>-<scheme>-<width>.jpg.
    Catches the file named after something else: every visit's screenshot written to one file, each
    over the last (the step's file name read after the loop over the steps had reused its variable)."""
    pages = site_pages()[:2]
    for site_page in pages:
        page, guard = new_guarded_page(**WIDTHS["phone"], color_scheme="dark")
        options = {"built_site": built_site, "screenshots_dir": tmp_path, "checked_styles": set()}
        visit = record_visit(page, guard, site_page, "phone", "dark", **options)
        visit.get("screenshot")
    expected = {f"{page_id(p).replace('/', '--')}-dark-phone.jpg" for p in pages}
    assert {f.name for f in tmp_path.iterdir()} == expected
    assert all((tmp_path / name).read_bytes()[:3] == b"\xff\xd8\xff" for name in expected)  # JPEG


def test_palette_toggle_switches_scheme_and_the_choice_persists(isolated_guarded_page):
    """The header toggle switches light to dark, a full load of another page keeps it, and back."""
    page, guard = isolated_guarded_page
    first, second = site_pages()[0], site_pages()[-1]
    toggle = page.locator("form[data-md-component=palette] label:not([hidden])")
    page.goto(first)
    assert_scheme(page, first, "light")
    toggle.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    assert_scheme(page, first, "dark")

    page.goto(second)  # a full page load: the choice was stored, not only kept in memory
    assert_scheme(page, second, "dark")
    toggle.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'default'")
    assert_scheme(page, second, "light")
    guard.check()


TRANSITION_OF_HEADER_BUTTON = "() => getComputedStyle(document.querySelector('.md-header__button')).transitionDuration"


def test_transitions_are_back_on_once_the_page_has_loaded(isolated_guarded_page):
    """Catches a page left with every transition off: overrides/main.html marks the body as switching
    colours before the theme's bundle runs, for speed, and the bundle must still unmark it (it would not
    if the mark came after the bundle). Checked after a load, and after a scheme switch."""
    page, guard = isolated_guarded_page
    page.goto(site_pages()[0])
    unmarked = "!document.body.hasAttribute('data-md-color-switching')"
    page.wait_for_function(unmarked, timeout=10_000)
    assert page.evaluate(TRANSITION_OF_HEADER_BUTTON) == "0.25s"
    page.locator("form[data-md-component=palette] label:not([hidden])").click()
    page.wait_for_function(f"document.body.dataset.mdColorScheme === 'slate' && {unmarked}", timeout=10_000)
    assert page.evaluate(TRANSITION_OF_HEADER_BUTTON) == "0.25s"
    guard.check()


NAME_AND_CODE_COLOURS = """() => {
  const code = document.querySelector("article .highlight code");
  const name = document.createElement("span");
  name.className = "n";
  name.textContent = "x";
  code.appendChild(name);
  const colours = [getComputedStyle(code).color, getComputedStyle(name).color];
  name.remove();
  return colours;
}"""


def test_names_show_in_their_colour_without_their_span(isolated_guarded_page):
    """Catches names shown in another colour than a highlighted name's, in either scheme: the build drops
    Pygments' span around each name (fieldnotes/render/code_spans.py), so a code block's own text must have the
    colour a name's span would give it. A name token is put back into a code block to compare. (With
    mkdocs-material 9.8 the two agree even without site.css's rule; this guards a theme upgrade or a
    site.css change that gives names their own colour.)"""
    page, guard = isolated_guarded_page
    page.goto("/leaf-vs-intermediate/")
    code, name = page.evaluate(NAME_AND_CODE_COLOURS)
    assert code == name, f"light scheme: code text {code}, a name {name}"
    page.locator("form[data-md-component=palette] label:not([hidden])").click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    code, name = page.evaluate(NAME_AND_CODE_COLOURS)
    assert code == name, f"dark scheme: code text {code}, a name {name}"
    guard.check()


# Each faint text is the only one of its kind, behind a text of the same kind that passes: a paragraph,
# a text hidden before it, a text on another backdrop. Each passing text repeats an earlier one.
FAINT_AFTER_FINE = """
<h1>Contrast</h1>
  <p>fine</p><p>fine <span style="color: #eee" id="faint-in-a-repeated-paragraph">faint</span></p>
  <em style="color: #ccc; display: none">hidden</em><em style="color: #ccc" id="faint-after-a-hidden-one">faint</em>
  <div><span style="color: #666">fine</span></div>
  <div style="background: #bbb"><span style="color: #666" id="faint-on-another-backdrop">faint</span></div>
  <p>fine</p><div><span style="color: #666">fine</span></div>
  <strong style="color: #ddd; display: none">hidden</strong>
"""
# The next page audited: what the first one showed is not checked again, but what it hid is, and so is
# what it did not have.
FAINT_ON_A_LATER_PAGE = """
<h1>Contrast</h1>
  <p>fine</p><p>fine <span style="color: #eee">faint, checked on the first page</span></p>
  <strong style="color: #ddd" id="faint-hidden-on-the-first-page">faint</strong>
  <div style="background: #bbb"><span style="color: #777" id="faint-new-on-this-page">faint</span></div>
"""


def audit_of(page, html: str, checked: set[str]) -> tuple[set[str], set[str]]:
    """The elements the audit flags for contrast on a page of the site's address that holds `html` alone
    (none of the theme's links, which it would be colouring half-way), and the rules that passed."""
    document = f'<!doctype html><html lang="en"><title>Contrast</title><body><main>{html}</main></body></html>'
    page.route("**/contrast/", lambda route: route.fulfill(body=document, content_type="text/html"))
    page.goto("/contrast/")
    page.unroute("**/contrast/")
    results = audit(page, checked)
    flagged = {
        target
        for violation in results["violations"]
        if violation["id"] == "color-contrast"
        for node in violation["nodes"]
        for target in node["target"]
    }
    return flagged, {rule["id"] for rule in results["passes"]}


def test_the_contrast_audit_skips_only_what_it_has_checked(isolated_guarded_page):
    """Catches a colour-contrast audit that skips a text whose style it has not checked
    (MARK_REPEATED_STYLES): one that excludes what a repeated element holds, counts a hidden element as
    checked, on the page or on a page audited before, or leaves the backdrop out of a style. And one
    that leaves a page with no new style nothing to check (the h1 excluded too), so that
    test_page_on_desktop would find that axe did not evaluate it."""
    page, guard = isolated_guarded_page  # a tab of its own: it routes an address
    checked = set()
    first, _ = audit_of(page, FAINT_AFTER_FINE, checked)
    assert first == {"#faint-in-a-repeated-paragraph", "#faint-after-a-hidden-one", "#faint-on-another-backdrop"}
    later, _ = audit_of(page, FAINT_ON_A_LATER_PAGE, checked)
    assert later == {"#faint-hidden-on-the-first-page", "#faint-new-on-this-page"}
    again, passed = audit_of(page, FAINT_ON_A_LATER_PAGE, checked)
    assert not again and "color-contrast" in passed
    guard.check()
