"""No panel over the graph stands over the nodes that matter now (a review of issue 14 §5, in
Chromium at 1024x768 and 1280x800 in the projector theme): with Compare runs on, the quiz
"every adjoint" and the detail panel of L open, the minimap stood over the asked node t at
1024x768 (since a review of issue 16 it covers no node at all: the last test), and the
trace-inputs bar over a as ā was summed (the graph area, 190 px tall there, leaves the
camera no room to keep a clear: the bar steps aside for that step). At every question, no
shown minimap, trace bar, camera note or line of step numbers overlaps the step's nodes or
the asked node. Screenshots in SHOTS."""
from __future__ import annotations

import pathlib

import pytest
from page_helpers import node
from test_links import fragment
from test_projector_clear_page import answer, each_question
from test_projector_layout_page import still, themed
from test_quiz_page import TANH
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SHOTS = pathlib.Path("/tmp/gradwalk-overlay-shots")
NUDGED = TANH.replace("a = 1.0", "a = 1.001")

# "<panel> over <node>" for each shown panel over the graph whose box overlaps the box of a
# step's node (current, source, target) or the asked node; a panel that stepped aside
# (visibility: hidden) is not shown.
COVERED = """() => {
  const r = (e) => e.getBoundingClientRect();
  const shown = (e) => !e.hidden && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const panels = [...document.querySelectorAll('.graph-wrap :is(.minimap, .graph-trace, .camera-note, .step-numbers)')].filter(shown);
  const nodes = [...document.querySelectorAll('#graph g.node:is(.current, .source, .target, .quiz-asked)')];
  return panels.flatMap((p) => nodes.filter((n) => hit(r(p), r(n.querySelector('.box'))))
    .map((n) => `${p.className.split(' ')[0]} over ${n.dataset.name}`));
}"""


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_panel_over_the_steps_nodes_or_the_asked_node(open_page, size):
    SHOTS.mkdir(exist_ok=True)
    link = {"v": 1, "program": NUDGED, "diff_base": TANH, "quiz": "adjoints"}
    page = themed(open_page(*size, path=f"/#{fragment(link)}"))
    page.wait_for_selector('#quiz[data-quiz="ready"]')
    page.wait_for_selector('#diff[data-state="ready"]')
    problems = []
    for asked in each_question(page):
        node(page, "L").dispatch_event("click")   # L's detail panel open, as the review had it
        page.wait_for_selector("#detail:not([hidden])")
        still(page)
        page.wait_for_timeout(300)   # the minimap and the panels follow the camera's last move
        name = page.evaluate("document.querySelector('g.node.quiz-asked')?.dataset.name")
        problems += [f"question {asked} ({name}): {p}" for p in page.evaluate(COVERED)]
        problems += [f"question {asked} ({name}): minimap {p}" for p in page.evaluate(OVER_ANY_NODE)]
        page.screenshot(path=SHOTS / f"overlays-{size[0]}-q{asked}.png")
        node(page, "L").dispatch_event("click")   # closed again: the question's own view
        page.wait_for_selector("#detail", state="hidden")
        answer(page, "999")
        page.get_by_role("button", name="Show and continue").click()
    # was at 1024x768: the minimap over t, c, d, e, a in turn, the trace bar over a at b̄
    # Since a review of issue 16 the minimap covers no node at all, beside the panel too: here
    # every corner holds a node, the trace bar or the panel at both sizes, so it is not shown
    # (at 1280x800 it used to show over other nodes than these; the camera's note and Fit say
    # that more of the graph is off screen).
    assert problems == [], "\n".join(problems)


# Every shown minimap's overlap with any node's drawing (its box and its numbers): "over <name>".
OVER_ANY_NODE = """() => {
  const map = document.querySelector('.graph-wrap .minimap');
  if (!map || map.hidden || !map.getClientRects().length) return [];
  const m = map.getBoundingClientRect();
  const hit = (b) => m.left < b.right - 1 && b.left < m.right - 1 && m.top < b.bottom - 1 && b.top < m.bottom - 1;
  return [...document.querySelectorAll('#graph g.node')].filter((g) => hit(g.getBoundingClientRect()))
    .map((g) => `over ${g.dataset.name}`);
}"""

# The detail panel's lines (text line boxes, KaTeX's included) that its seen foot cuts: the
# foot is the top of the paper over the "more below" cue where that shows (app.css), else the
# panel's padding box's foot. "text [top, bottom] foot y".
DETAIL_CUT = """() => {
  const p = document.querySelector('#detail');
  const box = p.getBoundingClientRect();
  let foot = box.top + p.clientTop + p.clientHeight;
  const cue = p.querySelector('.more-cue');
  if (cue && getComputedStyle(cue).display !== 'none') {
    foot = cue.getBoundingClientRect().top - (parseFloat(getComputedStyle(cue, '::before').height) || 0);
  }
  const out = [], range = document.createRange();
  const roots = [p, ...[...p.querySelectorAll('*')].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.data.trim() || t.parentElement.closest('.more-cue')) continue;
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) {
        if (r.height > 0 && r.top < foot - 1.5 && r.bottom > foot + 1.5) out.push(`${t.data.trim().slice(0, 30)} [${Math.round(r.top)}, ${Math.round(r.bottom)}] foot ${Math.round(foot)}`);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_changed_only_with_ls_panel_covers_no_node_and_cuts_no_line(open_page, size):
    """A review of issue 16 (projector): a = 1.0 against a = 1.001, End, "changed only", L's
    detail panel open: the minimap stood over t's and d's value rows (1024x768), over e's box
    (1280x800); the panel's "Against the previous run" line was cut in half at its foot, with
    no sign of the gradient line under it."""
    SHOTS.mkdir(exist_ok=True)
    link = {"v": 1, "program": NUDGED, "diff_base": TANH}
    page = themed(open_page(*size, path=f"/#{fragment(link)}"))
    page.wait_for_selector('#diff[data-state="ready"]')
    page.locator("#narration").click()
    page.keyboard.press("End")
    page.locator(".diff-filter-switch input").check()
    node(page, "L").dispatch_event("click")
    page.wait_for_selector("#detail:not([hidden]) .diff-detail")
    still(page)
    page.wait_for_timeout(300)   # the minimap and the panel follow the camera's last move
    page.screenshot(path=SHOTS / f"diff-detail-{size[0]}.png")
    assert page.evaluate(OVER_ANY_NODE) == []
    assert page.evaluate(DETAIL_CUT) == []
    # what is below the panel's foot is said: the cue shows while the gradient line is not seen
    seen = page.evaluate("""() => { const p = document.querySelector('#detail'), li = p.querySelector('.diff-detail li:last-child');
      const cue = p.querySelector('.more-cue'), shown = getComputedStyle(cue).display !== 'none';
      const foot = shown ? cue.getBoundingClientRect().top : p.getBoundingClientRect().bottom;
      return [li.getBoundingClientRect().bottom <= foot + 1, shown]; }""")
    assert seen[0] or seen[1], seen
    # scrolled to its end, the gradient line shows whole
    page.evaluate("() => { const p = document.querySelector('#detail'); p.scrollTop = p.scrollHeight; }")
    page.wait_for_timeout(200)
    assert page.evaluate(DETAIL_CUT) == []
    assert page.locator("#detail .diff-detail li", has_text="gradient").is_visible()
