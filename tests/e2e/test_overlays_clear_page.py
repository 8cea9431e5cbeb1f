"""No panel over the graph stands over the nodes that matter now (a review of issue 14 §5, in
Chromium at 1024x768 and 1280x800 in the projector theme): with Compare runs on, the quiz
"every adjoint" and the detail panel of L open, the minimap stood over the asked node t at
1024x768 (it may cover other nodes beside an open detail panel, never the asked one), and the
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
    problems, minimap_shown = [], 0
    for asked in each_question(page):
        node(page, "L").dispatch_event("click")   # L's detail panel open, as the review had it
        page.wait_for_selector("#detail:not([hidden])")
        still(page)
        page.wait_for_timeout(300)   # the minimap and the panels follow the camera's last move
        name = page.evaluate("document.querySelector('g.node.quiz-asked')?.dataset.name")
        problems += [f"question {asked} ({name}): {p}" for p in page.evaluate(COVERED)]
        minimap_shown += page.locator(".minimap:not([hidden])").count()
        page.screenshot(path=SHOTS / f"overlays-{size[0]}-q{asked}.png")
        node(page, "L").dispatch_event("click")   # closed again: the question's own view
        page.wait_for_selector("#detail", state="hidden")
        answer(page, "999")
        page.get_by_role("button", name="Show and continue").click()
    # was at 1024x768: the minimap over t, c, d, e, a in turn, the trace bar over a at b̄
    assert problems == [], "\n".join(problems)
    if size == (1280, 800):
        assert minimap_shown > 0   # it still shows where it covers none of them
