"""Nothing of a node is cut at the graph's top edge while the camera follows the walk (issue 14,
the projector layout), in Chromium at 1024x768 and 1280x800 in the projector theme: neither a
node's title row nor the mark drawn over its box (Compare runs' "Δ ...", render/diff.js). A
node is either whole below the top edge or wholly above it. Before (render/zoom.js framed the
layout's boxes, which hold no mark, and kept one scale at every step):
- the tanh example compared (a = 1.001) at step 0: c's "Δ grad +0.0003931" 6 px above the top
  at 1280x800 (its box 16 px below it); at step 15 c's title cut by 42 / 15 px (the camera
  panned down to b's `+=` note);
- mlp-classifier compared (W1's seed 1 -> 7) at step 14: b2's title cut by 14 / 22 px, W2's
  box by 4 / 11 px, and logits' Δ by 1 / 8 px; uncompared at 1024x768, b2's and W2's titles
  by 22 / 11 px (the camera kept the readable floor there: in the projector theme a step now
  zooms out for a title, no further than it needs and at most to TITLE_REACH of the floor,
  its numbers at 13 px: viewport.js reaches).
Geometry is read from bounding boxes (px); the screenshots are for a person to look at."""
from __future__ import annotations

import pytest

from page_helpers import choose
from test_compare_player_page import MLP_SEED, compared
from test_projector_layout_page import go, themed, total
from test_quiz_tensors_page import SHOTS

SIZES = [(1024, 768), (1280, 800)]

# The parts of the nodes that cross the top of the graph's visible area (below the camera's
# note when it shows) while their box is in view (partly): their box, title and mark.
CUT_AT_TOP = """() => {
  const box = (e) => e.getBoundingClientRect();
  const svg = box(document.querySelector('#graph'));
  const wrap = box(document.querySelector('.graph-wrap'));
  const note = document.querySelector('.camera-note:not([hidden])');
  const top = Math.max(svg.top, wrap.top, note ? box(note).bottom : -Infinity);
  const out = [];
  for (const g of document.querySelectorAll('#graph g.node')) {
    const own = g.querySelector('.box');
    if (!own || box(own).bottom <= top + 1) continue;   // wholly above the edge: not cut
    for (const e of g.querySelectorAll('.box, text.label, .diff-delta')) {
      const r = box(e);
      if (e.getClientRects().length && r.width > 0 && r.top < top - 1)
        out.push(`${g.dataset.name} ${e.getAttribute('class')} '${e.textContent.trim().slice(0, 24)}' at ${Math.round(r.top)}, the top at ${Math.round(top)}`);
    }
  }
  return out;
}"""


def cuts(page, steps) -> list[str]:
    found = []
    for at in steps:
        go(page, at)
        page.wait_for_timeout(350)   # the step's pulse lands and its note is drawn
        found += [f"step {at}: {c}" for c in page.evaluate(CUT_AT_TOP)]
    return found


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_tanh_example_compared_cuts_no_node_nor_its_mark(open_explorer, size):
    ex = open_explorer(*size)
    page = themed(ex.page)
    compared(page, "seed-tanh-fanout", ("a = 1.0", "a = 1.001"))
    page.wait_for_selector("#graph g.node .diff-delta")
    problems = cuts(page, range(total(page) + 1))
    go(page, 0)
    page.screenshot(path=f"{SHOTS}/marks-tanh-compared-{size[0]}-step0.png")
    assert problems == [], "\n".join(problems)
    assert ex.errors == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("compare", [True, False], ids=["compared", "alone"])
def test_mlp_classifier_cuts_no_title_at_the_top(open_explorer, size, compare):
    ex = open_explorer(*size)
    page = themed(ex.page)
    if compare:
        compared(page, "mlp-classifier", MLP_SEED)
        page.wait_for_selector("#graph g.node .diff-delta")
    else:
        choose(page, "mlp-classifier")
    problems = cuts(page, [0, 13, 14, 15])
    go(page, 14)
    page.wait_for_timeout(350)
    page.screenshot(path=f"{SHOTS}/marks-mlp-{'compared' if compare else 'alone'}-{size[0]}-step14.png")
    # the step zoomed out no further than the camera's reach (viewport.js reaches: STEP_REACH
    # of the readable floor, 0.78 with the text at 100%): the numbers still drawn
    scale = float(page.locator("#graph").get_attribute("data-scale"))
    assert scale >= 0.74 * 14 / 18 - 1e-3
    assert page.locator("#graph").get_attribute("data-numbers") == "shown"
    # was, alone at 1024x768: b2's and W2's titles cut at the top at step 14 (the camera kept
    # the readable floor, 0.778, where no place shows the step and b2 whole)
    assert problems == [], "\n".join(problems)
    if not compare:
        # the numbers at 14 px at both sizes: h @ W2's first gradient takes a note of two lines
        # (narration.js calloutOf: "was" zeros and "now" the `+=` line again made three), and b2's
        # title down to the note fits the 307 px band at the readable floor (0.778). Was, at
        # 1024x768 (410 layout units, 319 px): zoomed out for b2's title to 0.722, 13.0 px
        assert scale * 18 >= 14 - 1e-2, scale
    assert ex.errors == []
