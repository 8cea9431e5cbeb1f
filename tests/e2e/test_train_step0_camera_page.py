"""Train mode at step 0 on a projector (1024x768 and 1280x800, projector theme): a dead unit's
tag added or taken off keeps the output in the graph area. Before: the tag's "marks" event made
the camera follow a step that step 0 does not have; at a scale other than the refit's it placed
the drawing's left end, and the graph area under the note "Not all of the graph fits at a
readable size here" was empty (a newcomer's check: about 3 Trains in 21, whenever the marks
came after the refit that the Train panel's new rows caused). The race is held here: the page
is settled first, then the marks change, as render/dead.js changes them. Geometry from
bounding boxes (px)."""
from __future__ import annotations

import pytest

from page_helpers import choose, leave_editor, wait_step
from test_projector_layout_page import still, themed
from test_quiz_tensors_page import SHOTS

SIZES = [(1024, 768), (1280, 800)]

# The output's box and the graph area's, in px.
BOXES = """() => {
  const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return { graph: r(document.querySelector('#graph')), output: r(document.querySelector('g.node.output .box')) };
}"""

# What render/dead.js does when a unit is no longer dead: its tag goes, then "marks".
UNMARK = """() => {
  const tags = [...document.querySelectorAll('#graph text.dead-tag')];
  for (const t of tags) t.remove();
  document.querySelector('#graph').dispatchEvent(new CustomEvent('marks'));
  return tags.length;
}"""


def output_inside(page) -> tuple[bool, dict]:
    boxes = page.evaluate(BOXES)
    (gx0, gy0, gx1, gy1), (ox0, oy0, ox1, oy1) = boxes["graph"], boxes["output"]
    return (ox0 >= gx0 - 1 and oy0 >= gy0 - 1 and ox1 <= gx1 + 1 and oy1 <= gy1 + 1), boxes


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("preset", ["train-xor-seed1", "train-spirals"])
def test_a_dead_mark_at_step_0_keeps_the_output_in_view(open_explorer, size, preset):
    ex = open_explorer(*size)
    page = themed(ex.page)
    choose(page, preset)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=60_000)
    assert page.locator("#graph text.dead-tag").count() >= 1   # h's dead units are marked
    # settle at step 0 by the player (step 1, then back: the automatic view refits)
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 0)
    still(page)
    inside, boxes = output_inside(page)
    assert inside, boxes
    # the marks change once the refit is done: the order the race sometimes took
    assert page.evaluate(UNMARK) >= 1
    still(page)
    assert page.locator('#graph[data-fitted="auto"]').count() == 1
    inside, boxes = output_inside(page)
    page.screenshot(path=f"{SHOTS}/train-step0-marks-{preset}-{size[0]}.png")
    assert inside, boxes
    assert ex.unexpected_errors() == []
