"""Typeset rules (issue 18 §3, the detail panel's part): each backward rule is set by KaTeX
(bundled with its fonts from npm, nothing from a CDN) with the plain Unicode rule as its
aria-label, under a style policy with no inline style attributes: the test serves the page
with that policy (STRICT) and fails on any securitypolicyviolation (KaTeX sizes its boxes
through the CSSOM, which the policy allows, never a style attribute)."""
from __future__ import annotations

import pytest
from page_helpers import leave_editor, new_page, node, trace
from test_tensors import LINEAR

# style-src 'self' for style attributes (style-src-attr falls back to it: no style="" from
# markup, the way KaTeX's markup through innerHTML would need one), and <style> elements
# allowed: CodeMirror's style-mod mounts its rules in one at load (a violation of a plain
# style-src 'self' before this change, which is why server/main.py's CSP still has
# 'unsafe-inline'; a nonce through EditorView.cspNonce would lift that).
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

    def open_page(size=(1280, 800), theme="light"):
        page = new_page(chromium, contexts, size)
        page.add_init_script(WATCH)

        def strict(route):
            answer = route.fetch()
            route.fulfill(response=answer, headers={**answer.headers, "content-security-policy": STRICT})
        page.route(lambda url: url.rstrip("/") == app_url.rstrip("/"), strict)
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
    x_rule = next(r for r in plain if r.endswith("X̄ += ∂L/∂(X @ W) @ Wᵀ : (4,3) = (4,2) @ (2,3)"))
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
