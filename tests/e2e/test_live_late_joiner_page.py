"""A student who joins a live room mid-walk (polish17 item 5): the lecturer at backward step
14 of the tanh example, a 390x844 phone (touch) opens /live/{room}. It showed the step at 14 px
numbers with c cut at the left edge (21 px of its box off screen): laid out top to bottom the
graph was 3.5 columns wide (d between a and e), too wide for 390 px at that size. The upright
layout takes dagre's narrowest alignment (2 columns), and the phone keeps the automatic view,
which shows it whole with the step's `+=` note: every node and the note inside the graph
area, numbers at 14 px or more, the same for a late joiner as for a student who followed from
step 0. Screenshots in /tmp/gradwalk-live-shots."""
from __future__ import annotations

import pytest
from page_helpers import new_page
from test_live_camera_page import TANH, _post
from test_live_room_page import SHOTS
from test_tablet_touch_page import NUM_FONT, READABLE_PX, _cut

NAMES = ("a", "b", "c", "e", "d", "t", "L")


def _ready(page, step: int) -> None:
    page.wait_for_selector(f'#embed[data-status="ready"][data-step="{step}"]')
    page.wait_for_selector('#graph[data-camera="still"]')
    page.wait_for_timeout(400)   # a late refit (fonts, the bar's height) has its turn
    page.wait_for_selector('#graph[data-camera="still"]')


def _whole_and_readable(page, where: str) -> float:
    """The data-scale of `page`'s graph, once every node and `+=` note is inside its area and
    the numbers read (14 px)."""
    assert _cut(page, NAMES) == {}, where
    notes = page.evaluate("""() => {
        const g = document.querySelector('#graph').getBoundingClientRect();
        return [...document.querySelectorAll('#graph g.callout')].map((c) => c.getBoundingClientRect())
            .filter((r) => r.width > 0).map((r) => [r.top - g.top, g.bottom - r.bottom, r.left - g.left, g.right - r.right]);
    }""")
    assert all(min(n) >= -0.5 for n in notes), (where, notes)   # each step's note whole
    scale = float(page.get_attribute("#graph", "data-scale"))
    assert scale * NUM_FONT >= READABLE_PX - 1e-6, (where, scale)
    assert page.get_attribute("#graph", "data-numbers") == "shown"
    return scale


@pytest.mark.parametrize("step", [14, 5])
def test_a_late_joiner_sees_the_whole_graph_at_the_lecturers_step(chromium, app_url, step):
    SHOTS.mkdir(exist_ok=True)
    contexts = []
    try:
        opened = _post(f"{app_url}/api/live", {"v": 1, "program": TANH})
        room, token = opened["room"], opened["presenter_token"]
        early = new_page(chromium, contexts, (390, 844), touch=True)
        early.goto(f"{app_url}/live/{room}")
        _ready(early, 0)
        for k in range(1, step + 1):
            _post(f"{app_url}/api/live/{room}/state", {"v": 1, "program": TANH, "step": k}, token)
            early.wait_for_selector(f'#embed[data-step="{k}"]')
        late = new_page(chromium, contexts, (390, 844), touch=True)
        late.goto(f"{app_url}/live/{room}")
        _ready(late, step)
        _ready(early, step)
        late.screenshot(path=SHOTS / f"late-joiner-390x844-step{step}.png")
        if step == 14:   # a backward step: a's `+= -0.7864` note
            assert late.locator("#graph g.callout").count() >= 1
        scale = _whole_and_readable(late, "late")
        assert abs(_whole_and_readable(early, "early") - scale) < 1e-3   # one view for both
        assert late.errors == early.errors == []
    finally:
        for context in contexts:
            context.close()
