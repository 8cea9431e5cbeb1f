"""Typeset rules and narration (issue 18 §3): each backward rule of the detail panel, and the
narration line of the explorer and of the embed, is set by KaTeX
(bundled with its fonts from npm, nothing from a CDN) with the plain Unicode rule as its
aria-label, under a style policy with no inline style attributes: the test serves the page
with that policy (STRICT) and fails on any securitypolicyviolation (KaTeX sizes its boxes
through the CSSOM, which the policy allows, never a style attribute)."""
from __future__ import annotations

import re

import pytest
from page_helpers import leave_editor, new_page, node, trace
from test_embed import TANH
from test_links import fragment
from test_tensors import LINEAR

# style-src 'self' for style attributes (style-src-attr falls back to it: no style="" from
# markup, the way KaTeX's markup through innerHTML would need one), and <style> elements
# allowed: CodeMirror's style-mod mounts its rules in one at load. The served policy
# (server/main.py CSP) admits only the answer's nonce there, which CodeMirror's elements carry
# (EditorView.cspNonce): tests/e2e/test_style_nonce_page.py.
STRICT = ("default-src 'self'; script-src 'self'; style-src 'self'; "
          "style-src-elem 'self' 'unsafe-inline'; img-src 'self' data:; "
          "connect-src 'self'; object-src 'none'; base-uri 'self'")
WATCH = """window.violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));"""


@pytest.fixture
def strict_page(chromium, app_url):
    """open(size, theme) -> the explorer with style-src 'self' only, violations recorded."""
    contexts = []

    def open_page(size=(1280, 800), theme="light", embed=None):
        """embed: the fragment of an embed to open (/embed?theme=...), instead of the explorer."""
        page = new_page(chromium, contexts, size)
        page.add_init_script(WATCH)

        def strict(route):
            answer = route.fetch()
            route.fulfill(response=answer, headers={**answer.headers, "content-security-policy": STRICT})
        base = app_url.rstrip("/") + ("/embed" if embed else "")
        page.route(lambda url: url.split("#")[0].split("?")[0].rstrip("/") == base, strict)
        if embed:
            page.goto(f"{base}?step=11&theme={theme}#{embed}")
            page.wait_for_selector('#embed[data-status="ready"][data-step="11"]')
            return page
        page.goto(app_url)
        page.wait_for_selector('#app[data-status="ready"]')
        if theme != "light":
            page.locator("#view-menu summary").click()
            page.select_option("#theme", theme)
            page.locator("#view-menu summary").click()
        return page

    yield open_page
    for context in contexts:
        context.close()


def open_rules(page, name: str = "X @ W"):
    trace(page, LINEAR)
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-step="16"]')
    node(page, name).click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    return panel.locator(".detail-rules li .rule")


@pytest.mark.parametrize("size, theme", [((1280, 800), "light"), ((1024, 768), "projector")],
                         ids=["1280x800", "1024x768-projector"])
def test_the_detail_panels_rules_are_typeset_under_a_strict_style_policy(strict_page, size, theme):
    page = strict_page(size, theme)
    rules = open_rules(page)
    typeset = rules.locator(".typeset")
    assert typeset.count() == rules.count() >= 2
    plain = typeset.evaluate_all("els => els.map((e) => e.getAttribute('aria-label'))")
    x_rule = next(r for r in plain if r.endswith("X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = 4×2 @ 2×3"))
    assert x_rule
    shown = typeset.nth(plain.index(x_rule))
    assert shown.get_attribute("role") == "math"
    # KaTeX's boxes, in its own fonts (self-hosted), the bar an accent over X, Wᵀ a superscript ⊤
    assert shown.locator(".katex .katex-html").count() == 1
    assert shown.locator(".katex-accent .accent-body").count() >= 1
    assert "⊤" in shown.locator(".msupsub").first.inner_text()
    page.evaluate("() => document.fonts.ready")
    family = shown.locator(".mord.mathnormal").first.evaluate("e => getComputedStyle(e).fontFamily")
    assert "KaTeX_Math" in family
    assert page.evaluate("() => document.fonts.check('1em KaTeX_Math')")
    loaded = page.evaluate("() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family)")
    assert any("KaTeX" in f for f in loaded), loaded
    # nothing from another origin, nothing blocked by the policy
    assert page.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name)"
                         ".filter((u) => !u.startsWith(location.origin))") == []
    # stepping back with the node pinned draws the panel again (its rules cloned from a cache)
    page.locator("#narration").click()
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('#player[data-step="15"]')
    assert rules.locator(".typeset .katex").count() == rules.count()
    assert page.evaluate("() => window.violations") == []
    # readable: the rule no smaller than the panel's text, inside the panel's width
    size_px = shown.evaluate("e => parseFloat(getComputedStyle(e.querySelector('.katex')).fontSize)")
    assert size_px >= 15, size_px
    assert page.errors == []


# The narration at step 11 of TANH: t's rule sends d its gradient.
D_BAR = "t = tanh(d), so d̄ += (1 - t²) · t̄"


def assert_typeset_narration(page, line):
    """`line` (a narration element) shows its step's narration set by KaTeX, readable, while
    its text stays the plain narration; nothing blocked by the style policy."""
    page.evaluate("() => document.fonts.ready")
    plain = line.locator(".narration-plain")
    said = plain.text_content()
    assert said.startswith(D_BAR), said
    # the element's text is the plain narration: the tests, a screen reader (aria-live) and
    # a copied selection read no KaTeX glyphs (its rendering is in a shadow root)
    assert line.inner_text() == line.text_content() == said
    shown = line.locator(".narration-tex")
    assert shown.get_attribute("aria-hidden") == "true"
    # KaTeX's rules in the shadow root at once (a constructed copy of the loaded bundle sheet,
    # not a <link> that loads later and changes the line's height under the camera)
    assert shown.evaluate("e => [e.shadowRoot.adoptedStyleSheets.length,"
                          " e.shadowRoot.querySelectorAll('link').length]") == [1, 0]
    assert shown.locator(".katex .katex-html").count() == 1
    assert shown.locator(".katex-accent .accent-body").count() >= 1   # d̄, t̄
    assert shown.locator(".msupsub").first.inner_text().strip() == "2"   # t²
    family = shown.locator(".mord.mathnormal").first.evaluate("e => getComputedStyle(e).fontFamily")
    assert "KaTeX_Math" in family
    # no smaller than the plain line, and not cut: inside the line, the line inside the window
    line_px = line.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    tex_px = shown.locator(".katex").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert tex_px >= line_px, (tex_px, line_px)
    box, tex_box = line.bounding_box(), shown.locator(".katex").bounding_box()
    assert tex_box["x"] >= box["x"] and tex_box["x"] + tex_box["width"] <= box["x"] + box["width"] + 1
    assert tex_box["y"] >= box["y"] and tex_box["y"] + tex_box["height"] <= box["y"] + box["height"] + 1
    assert line.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert box["x"] + box["width"] <= page.viewport_size["width"]
    assert box["y"] + box["height"] <= page.viewport_size["height"]
    assert page.evaluate("() => window.violations") == []


@pytest.mark.parametrize("size, theme", [((1280, 800), "light"), ((1280, 800), "projector"),
                                         ((1024, 768), "projector")],
                         ids=["1280x800", "1280x800-projector", "1024x768-projector"])
def test_the_narration_is_typeset_and_its_text_stays_plain(strict_page, size, theme):
    page = strict_page(size, theme)
    trace(page, TANH)
    leave_editor(page)
    # step 0's line is prose, no formula: shown as it is (set as math, its "one node at a
    # time" read the article "a" as the variable a)
    line = page.locator("#narration")
    page.wait_for_selector('#player[data-step="0"]')
    assert "one node at a time" in line.inner_text()
    assert line.get_attribute("data-typeset") == "false"
    assert line.locator(".narration-tex .katex").count() == 0
    for _ in range(11):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector('#player[data-step="11"]')
    line = page.locator("#narration")
    assert_typeset_narration(page, line)
    # a message of the page's own (a trace that failed) is shown as it is, never set as math
    page.locator("#program").focus()
    page.keyboard.press("End")
    page.keyboard.type(" +")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('#narration[data-kind="stale"]')
    assert line.get_attribute("data-typeset") == "false"
    assert line.locator(".narration-tex .katex").count() == 0
    assert line.inner_text() == line.locator(".narration-plain").text_content() != ""
    assert page.evaluate("() => window.violations") == []
    assert page.errors == []


@pytest.mark.parametrize("theme", ["light", "projector"])
def test_the_embeds_narration_is_typeset(strict_page, theme):
    page = strict_page((1024, 768), theme, embed=fragment({"v": 1, "program": TANH}))
    assert_typeset_narration(page, page.locator("#narration"))
    assert page.errors == []


# Whether the typeset narration fits its line: KaTeX's boxes inside the line's box, nothing
# scrolled sideways. null when the line is not typeset.
FITS = """e => {
  const k = e.querySelector('.narration-tex').shadowRoot.querySelector('.katex');
  if (!k) return e.dataset.typeset === "false" && e.scrollWidth <= e.clientWidth;   // prose: shown as it is
  const line = e.getBoundingClientRect(), tex = k.getBoundingClientRect();
  return tex.left >= line.left - 1 && tex.right <= line.right + 1 && tex.bottom <= line.bottom + 1
    && e.scrollWidth <= e.clientWidth;
}"""


def test_every_narration_of_a_tensor_walk_fits_its_line_on_a_projector(strict_page):
    """A tensor program's rules are the longest lines ("X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = ..."):
    at 1024x768 in the projector theme each wraps inside the line, none cut."""
    page = strict_page((1024, 768), "projector")
    trace(page, LINEAR)
    leave_editor(page)
    line = page.locator("#narration")
    steps = int(page.locator("#player").get_attribute("data-total") or 16)
    widest, summaries = (0, 0), 0
    for step in range(1, steps + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'#player[data-step="{step}"]')
        assert line.evaluate(FITS) is True, (step, line.inner_text())
        widest = max(widest, (len(line.inner_text()), step))
        if " · min " in line.inner_text():   # a tensor's summary: labelled fields, not a product
            summaries += 1
            # set as math, its fields apart (tex.js): never "· min ·", shown plain it was the
            # one line in bold text at Done of the MLP (issue 14 §5 review)
            assert line.get_attribute("data-typeset") == "true", line.inner_text()
            shown = line.evaluate("l => l.querySelector('.narration-tex').shadowRoot"
                                  ".querySelector('.katex-html').textContent")
            assert "min" in shown and not re.search(r"[⋅·]\s*min", shown), shown
    assert widest[0] > 60   # a line long enough to wrap was among them
    assert summaries   # the summaries were among the lines
    assert page.evaluate("() => window.violations") == []
    assert page.errors == []


# The typeset narration's rows: KaTeX's top-level boxes (the pieces it may wrap between)
# joined by the row each is on, as their text. A box left of the one before starts a row (their
# tops differ on one row: each box is as tall as its own glyphs).
ROWS = """e => {
  const rows = [];
  let right = Infinity;
  for (const b of e.querySelector('.narration-tex').shadowRoot.querySelectorAll('.katex-base')) {
    const box = b.getBoundingClientRect();
    if (box.left < right - 1) rows.push('');
    rows[rows.length - 1] += b.textContent.replace(/\\u200b/g, '');
    right = box.right;
  }
  return rows;
}"""


def test_the_narration_wraps_at_a_relation_never_inside_a_product_on_a_projector(strict_page):
    """At 1024x768 in the projector theme the fan-out step's line ("ā = 1.5729 + (-0.7864) =
    0.7864") wrapped as "1.5729 +" / "(−0.7864)": a row ends at a relation, a word or the
    line's end (static/js/tex.js narrationTex), never at an operator."""
    page = strict_page((1024, 768), "projector")
    trace(page, TANH)
    leave_editor(page)
    line = page.locator("#narration")
    wrapped = []
    for step in range(1, 17):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'#player[data-step="{step}"]')
        rows = line.evaluate(ROWS)
        for row in rows[:-1]:
            assert row.rstrip()[-1] not in "+−⋅∗×⊙", (step, rows)
        if len(rows) > 1:
            wrapped.append(rows)
    # the fan-out step wrapped, after its last "=": its sum "1.5729 + (−0.7864)" on one row
    assert len(wrapped) == 1 and wrapped[0][-1] == "0.7864", wrapped
    assert page.evaluate("() => window.violations") == []
    assert page.errors == []
