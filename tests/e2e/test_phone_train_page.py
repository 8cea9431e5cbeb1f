"""Train mode on touch screens, from the review of issue 17 §2 (the XOR preset of seed 003 on a
390x844 phone): at scroll 0 the narration was under the fixed bottom bar and the "Not all of
the graph fits" note covered the graph's top row of nodes; after Train the line said
"iteration 300 of 0–300" while the Iteration slider read 0. Touch emulation as
test_phone_views_page.py's at 390x844 and 820x1180; the iteration also on the desktop's
1280x800 and 1024x768 (one state, shown the same everywhere)."""
from __future__ import annotations

import pytest
from page_helpers import choose, new_page

PHONE, TABLET = (390, 844), (820, 1180)
SEED_003 = "train-xor-seed1"


@pytest.fixture
def train_page(chromium, app_url):
    """open(size, touch) -> the explorer at `size` (touch emulation when `touch`) with the
    XOR preset of seed 003 chosen (Train mode), ready and still."""
    contexts = []

    def open_page(size, touch: bool):
        page = new_page(chromium, contexts, size, touch)
        page.goto(app_url)
        page.wait_for_selector('#app[data-status="ready"]')
        choose(page, SEED_003)
        page.wait_for_selector('#graph[data-camera="still"]')
        page.touch = touch
        return page

    yield open_page
    for context in contexts:
        context.close()


def press(page, selector: str) -> None:
    locator = page.locator(selector)
    locator.tap() if page.touch else locator.click()


def trained(page) -> None:
    press(page, "#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    page.wait_for_selector('#graph[data-camera="still"]')


def at_scroll_0(page) -> dict:
    """The boxes (px) of the narration, the bottom bar and the camera's note (None when
    hidden), and of each node drawn, at scroll 0."""
    page.evaluate("() => window.scrollTo(0, 0)")
    return page.evaluate("""() => {
      const rect = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
      const note = document.querySelector('.camera-note');
      return { narration: rect(document.querySelector('#narration')), bar: rect(document.querySelector('#player')),
               graph: rect(document.querySelector('.graph-wrap')),
               note: note && !note.hidden ? rect(note) : null,
               nodes: [...document.querySelectorAll('#graph g.node')].map((n) => ({name: n.dataset.name, ...rect(n.querySelector('.box') ?? n)})) };
    }""")


def under_the_note(boxes: dict) -> list:
    """The nodes the note cuts across: part of a node above its bottom edge, part below (a
    node wholly under it is out of the camera's view, as one past the graph's edge)."""
    note = boxes["note"]
    if note is None:
        return []
    return [n for n in boxes["nodes"] if n["right"] > note["left"] and n["left"] < note["right"]
            and n["top"] < note["bottom"] - 3 and n["bottom"] > note["bottom"] + 3]


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=lambda s: f"{s[0]}x{s[1]}")
def test_at_scroll_0_the_narration_is_above_the_bar_and_the_note_cuts_no_node(train_page, size):
    page = train_page(size, touch=True)
    for when in ("chosen", "trained"):
        if when == "trained":
            trained(page)
        boxes = at_scroll_0(page)
        # it was under the bar: 800 px down a phone whose bar starts at 690
        assert boxes["narration"]["bottom"] <= boxes["bar"]["top"] + 1, (when, boxes["narration"], boxes["bar"])
        assert boxes["narration"]["top"] >= boxes["graph"]["bottom"] - 1, when
        assert boxes["graph"]["bottom"] - boxes["graph"]["top"] >= 140, (when, boxes["graph"])
        # the note says the graph is cut (at a readable size the XOR net is wider than a phone)
        assert boxes["note"] is not None, when
        assert under_the_note(boxes) == [], (when, boxes["note"], under_the_note(boxes))
    assert page.errors == []


@pytest.mark.parametrize("size, touch", [(PHONE, True), (TABLET, True), ((1280, 800), False), ((1024, 768), False)],
                         ids=["390x844", "820x1180", "1280x800", "1024x768"])
def test_after_train_the_slider_reads_the_iteration_the_line_says(train_page, size, touch):
    page = train_page(size, touch)
    trained(page)
    status = page.locator("#train-status")
    assert "iteration 300 of 0–300" in status.inner_text()
    assert status.get_attribute("data-iteration") == "300"
    assert page.locator("#train-iteration").input_value() == "300"   # it read 0
    assert page.locator(".train-iteration-text").inner_text() == "300"
    # a chosen iteration: the line, the slider and the player all say it
    slider = page.locator("#train-iteration")
    slider.fill("100")
    slider.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    assert status.get_attribute("data-iteration") == "100"
    assert "iteration 100 of 0–300, stepped in the graph" in status.inner_text()
    assert slider.input_value() == "100" and page.locator(".train-iteration-text").inner_text() == "100"
    assert page.errors == []
