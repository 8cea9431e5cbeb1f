"""The Train walk's camera on a lecture room's projector (1024x768 and 1280x800, projector
theme): at every step of a recorded iteration the step's two ends (the node sending the
gradient and the one receiving it, titles included) and its note are whole in the graph
area. Before: "XOR, seed 003 (learns)" at iteration 100, step 29 (W1's gradient flowing back
into X @ W1's inputs) at 1024x768 had W1.T 24 px past the graph's right edge and X's title cut
at its top: at the walk's scale (0.778, the readable floor) the step needs 768 px in a 760 px
wide graph column; 11 of its 34 steps had an end or the note cut at 1024x768 (steps 17-29). The
camera now zooms out for such a step, down to STEP_REACH of the floor (viewport.js). The geometry is read from bounding boxes (px); the screenshots are for a person."""
from __future__ import annotations

import pytest

from page_helpers import choose, leave_editor
from test_graph_band_page import CUT
from test_projector_layout_page import go, themed, total
from test_quiz_tensors_page import SHOTS

SEED_003 = "train-xor-seed1"
SIZES = [(1024, 768), (1280, 800)]
ENDS = ("g.node.source .box, g.node.source .label, g.node.target .box, g.node.target .label,"
        " g.callout rect")


def walk(page, iteration: int) -> None:
    """Train the preset and step through `iteration`'s passes, as a lecturer does."""
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=60_000)
    page.locator("#train-iteration").fill(str(iteration))
    page.click("#train-open")
    page.wait_for_selector(f'#player[data-iteration="{iteration}"]')
    page.wait_for_selector('#app[data-status="ready"]')


@pytest.mark.parametrize("size", SIZES)
def test_every_step_of_a_train_iteration_shows_both_ends_whole(open_explorer, size):
    ex = open_explorer(*size)
    page = themed(ex.page)
    choose(page, SEED_003)
    walk(page, 100)
    leave_editor(page)
    cuts = {}
    for step in range(1, total(page)):   # 0 and Done are overviews (camera notes), not steps
        go(page, step)
        found = page.evaluate(CUT, [ENDS, False])
        if found:
            cuts[step] = found
        if step in (23, 29):
            page.screenshot(path=f"{SHOTS}/train-walk-{step}-{size[0]}.png")
    assert cuts == {}, cuts
    assert ex.unexpected_errors() == []
