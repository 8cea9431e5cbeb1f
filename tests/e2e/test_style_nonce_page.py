"""The served page's style policy without 'unsafe-inline' (issue 18 §3): CodeMirror's style
elements carry the answer's nonce (EditorView.cspNonce, from templates/base.html's
`<meta name="csp-nonce">`), so the explorer, its editor, the typeset narration and the embed
run with no securitypolicyviolation, and a style element without the nonce is refused."""
from __future__ import annotations

import re

import pytest
from page_helpers import leave_editor, new_page, trace
from test_embed import TANH
from test_export import download
from test_links import fragment

WATCH = """window.violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));"""


@pytest.fixture
def served(chromium, app_url):
    """open(path, size) -> (page, the answer's CSP header): the page as the server serves it,
    with every violation recorded from before its first script."""
    contexts = []

    def open_page(path: str = "/", size=(1280, 800)):
        page = new_page(chromium, contexts, size)
        page.add_init_script(WATCH)
        answer = page.goto(app_url.rstrip("/") + path)
        return page, answer.headers["content-security-policy"]

    yield open_page
    for context in contexts:
        context.close()


def style_src(policy: str) -> list[str]:
    return next(d.split()[1:] for d in policy.split(";") if d.split()[:1] == ["style-src"])


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=["1280x800", "1024x768"])
def test_the_explorer_runs_under_a_style_policy_with_a_nonce_only(served, size):
    page, policy = served("/", size)
    page.wait_for_selector('#app[data-status="ready"]')
    sources = style_src(policy)
    assert "'unsafe-inline'" not in sources
    nonce = page.locator('meta[name="csp-nonce"]').get_attribute("content")
    assert len(nonce) >= 22 and f"'nonce-{nonce}'" in sources
    # CodeMirror mounted its rules in a <style> with the nonce: the editor is styled
    mounted = page.evaluate("""() => [...document.querySelectorAll('style')]
        .filter((s) => s.nonce && s.sheet && s.sheet.cssRules.length > 0).length""")
    assert mounted >= 1
    assert page.locator(".cm-editor").evaluate(
        "e => getComputedStyle(e).display === 'flex'")   # CodeMirror's base theme applied
    trace(page, TANH + "# typed\n")
    leave_editor(page)
    for _ in range(11):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector('#narration[data-typeset="true"]')
    # the SVG export draws in a scratch element with a <style> of its own (export/snapshot.js)
    svg, _ = download(page, "svg")
    assert svg.startswith(b"<svg") or b"<svg" in svg[:200]
    assert page.evaluate("() => window.violations") == []
    assert page.errors == []
    # the policy is in force: a style element without the nonce is refused, and said
    page.evaluate("""() => { const s = document.createElement('style');
        s.textContent = 'body { color: red }'; document.head.append(s); }""")
    page.wait_for_function("window.violations.length === 1")
    assert re.match(r"style-src-elem ", page.evaluate("() => window.violations[0]"))


def test_each_answer_has_its_own_nonce(served):
    _, first = served("/")
    _, second = served("/")
    assert style_src(first) != style_src(second)


def test_the_embed_runs_under_the_same_policy(served):
    page, policy = served(f"/embed?step=11#{fragment({'v': 1, 'program': TANH})}", (1024, 768))
    page.wait_for_selector('#embed[data-status="ready"][data-step="11"]')
    assert "'unsafe-inline'" not in style_src(policy)
    page.wait_for_selector('#narration[data-typeset="true"]')
    assert page.evaluate("() => window.violations") == []
    assert page.errors == []
