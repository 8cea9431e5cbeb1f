"""The narration at Done of a tensor training iteration shows whole lines (README: the
narration shows whole lines). Before: three spirals' iteration 2999 at 1024x768 (its Done says
four leaf gradients, typeset over four lines in a box of three) had its third line's foot cut
by a px under the shade, commas and descenders with it: the box left out the fourth line by
the 5 px a superscript rises over its top, measured before KaTeX's fonts had arrived
(render/rows.js keepHeightWhole). Geometry from the text's boxes (px)."""
from __future__ import annotations

import pytest

from page_helpers import choose, leave_editor, wait_step
from test_projector_layout_page import still, themed
from test_quiz_tensors_page import SHOTS

# The narration's lines its foot cuts: text boxes (in KaTeX's shadow root) that start a
# quarter of a line or more above the foot and end under it (a superscript of the next line
# rising a px over the foot is that line's empty top, not a cut).
CUT = """() => {
  const n = document.querySelector('.stage > .narration');
  const r = n.getBoundingClientRect();
  const foot = r.top + n.clientTop + n.clientHeight;
  const quarter = parseFloat(getComputedStyle(n).lineHeight) / 4;
  const range = document.createRange();
  const cut = [];
  const w = document.createTreeWalker(n.querySelector('.narration-tex').shadowRoot, NodeFilter.SHOW_TEXT);
  for (let t = w.nextNode(); t; t = w.nextNode()) {
    range.selectNodeContents(t);
    for (const q of range.getClientRects()) if (q.top < foot - quarter && q.bottom > foot + 0.5) cut.push([t.data, q.bottom - foot]);
  }
  return { cut, scrolls: n.scrollHeight > n.clientHeight + 1 };
}"""


@pytest.mark.parametrize("size,theme", [((1024, 768), "light"), ((1024, 768), "projector"), ((1280, 800), "projector")])
def test_a_training_iterations_done_narration_shows_whole_lines(open_explorer, size, theme):
    ex = open_explorer(*size)
    page = themed(ex.page, theme) if theme != "light" else ex.page
    choose(page, "train-spirals")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    page.click("#train-open")
    page.wait_for_selector('#player[data-iteration="2999"]')
    page.wait_for_selector('#app[data-status="ready"]')
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    still(page)
    page.wait_for_function("document.fonts.status === 'loaded'")
    # the narration measured again a frame after its fonts arrived (render/rows.js)
    page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    seen = page.evaluate(CUT)
    page.screenshot(path=f"{SHOTS}/done-narration-{theme}-{size[0]}.png")
    assert seen["cut"] == [], seen
    assert ex.unexpected_errors() == []
