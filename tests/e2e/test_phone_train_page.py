"""Train mode on touch screens, from the review of issue 17 §2 (the XOR preset of seed 003 on a
390x844 phone): at scroll 0 the narration was under the fixed bottom bar and the "Not all of
the graph fits" note covered the graph's top row of nodes; after Train the line said
"iteration 300 of 0–300" while the Iteration slider read 0. Touch emulation as
test_phone_views_page.py's at 390x844 and 820x1180; the iteration also on the desktop's
1280x800 and 1024x768 (one state, shown the same everywhere)."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

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


def iteration_100_embed(train_page) -> str:
    """The embed link of iteration 100 of seed 003's run (301 iterations), made at 1280x800."""
    page = train_page((1280, 800), touch=False)
    page.locator("#train-iteration").fill("100")
    page.click("#train-open")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    return page.evaluate("location.href").replace("/#", "/embed#")


def shoot(page, name: str) -> None:
    """A screenshot for a person to look at (GRADWALK_SHOTS, else /tmp/gradwalk-shots)."""
    shots = Path(os.environ.get("GRADWALK_SHOTS", "/tmp/gradwalk-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / name))


@contextlib.contextmanager
def phone_embed(train_page, chromium):
    """The embed of iteration 100's link on a 390x844 touch phone (open_embed), its browser
    context closed after."""
    url = iteration_100_embed(train_page)
    contexts: list = []
    try:
        yield open_embed(chromium, contexts, url)
    finally:
        for context in contexts:
            context.close()


def to_done(embed) -> None:
    """The embed's walk at its last step, the camera still."""
    embed.locator("#player .scrubber").fill(embed.locator("#player").get_attribute("data-total"))
    embed.wait_for_selector('#player .phase[data-phase="done"]')
    embed.wait_for_selector('#graph[data-camera="still"]')


def open_embed(chromium, contexts: list, url: str):
    """The embed at `url` on a 390x844 touch phone, once iteration 100's walk is ready."""
    embed = new_page(chromium, contexts, PHONE, touch=True, timeout=60_000)
    embed.goto(url)
    embed.wait_for_selector('#embed[data-status="ready"][data-iteration="100"]')
    return embed


def test_a_phone_embed_of_a_train_iteration_reads_its_loss_curve(train_page, chromium):
    """The embed of a link to iteration 100 of seed 003's run (301 iterations) on a 390x844
    phone put the plots in a 125 px column beside the graph: the curve 125x91 with its axis
    at 0 and 200 of 0-300, centred about 190 px down its column, blank above. The plots are
    a row over the graph now: the curve the frame's width, at least 120 px high, its axis at
    0, 100, 200, 300 in numbers 12 px or more, the graph right under the row."""
    with phone_embed(train_page, chromium) as embed:
        embed.wait_for_selector('#loss-curve[data-points="101"]')
        frame = embed.locator("#embed").bounding_box()
        inner = frame["width"] - 2 * 8   # the embed's padding (0.6rem a side at 16 px, rounded)
        embed.wait_for_function("() => document.querySelectorAll('#loss-curve .axis.x .tick').length === 4")
        curve, train = embed.locator("#loss-curve").bounding_box(), embed.locator(".embed-train").bounding_box()
        assert curve["width"] >= inner - 4 and curve["height"] >= 120, curve
        ticks = embed.locator("#loss-curve .axis.x .tick text")
        assert ticks.all_text_contents() == ["0", "100", "200", "300"]
        assert all(t.bounding_box()["height"] >= 12 for t in ticks.all()), [t.bounding_box() for t in ticks.all()]
        # no blank: the curve opens the frame, the graph follows the plots
        graph = embed.locator(".graph-wrap").bounding_box()
        assert curve["y"] - frame["y"] <= 12, (curve, frame)
        assert 0 <= graph["y"] - (train["y"] + train["height"]) <= 12, (graph, train)
        assert graph["width"] >= inner - 4 and graph["height"] >= 250, graph
        boundary = embed.locator("#boundary").bounding_box()   # seed 003's 2-D points: under the curve
        assert boundary["y"] >= curve["y"] + curve["height"] - 1 and boundary["height"] >= 80, boundary
        assert embed.errors == []
        shoot(embed, "embed-train-phone-390x844.png")


def test_a_phone_embed_of_a_train_iteration_opens_on_l_with_its_inputs(train_page, chromium):
    """Issue 17, the same embed on a 390x844 phone: the camera opened on L alone, at the
    right edge (the readable floor, 0.78), its inputs z and y cut at the left (z from -123 px),
    nothing saying what L is computed from. It opens on L with z and y whole now (zoomed out
    for that frame, as a phone's step is to show both of its ends), below the camera's note
    ("Not all of the graph fits"), which stands over no node, then or at Done."""
    with phone_embed(train_page, chromium) as embed:
        embed.wait_for_selector('#graph[data-camera="still"]')
        for when in ("opening", "done"):
            if when == "done":
                to_done(embed)
            boxes = at_scroll_0(embed)
            note, graph = boxes["note"], boxes["graph"]
            assert note is not None, when   # the XOR net does not fit a phone at a readable size
            over = [n for n in boxes["nodes"] if n["right"] > note["left"] + 1 and n["left"] < note["right"] - 1
                    and n["top"] < note["bottom"] - 1 and n["bottom"] > note["top"] + 1]
            assert over == [], (when, note, over)
            if when == "opening":
                shown = {n["name"]: n for n in boxes["nodes"]}
                for name in ("L", "z", "y"):
                    b = shown[name]
                    assert graph["left"] - 1 <= b["left"] and b["right"] <= graph["right"] + 1, (name, b, graph)
                    assert note["bottom"] - 1 <= b["top"] and b["bottom"] <= graph["bottom"] + 1, (name, b, note, graph)
        assert embed.errors == []
        shoot(embed, "embed-train-phone-done-390x844.png")


def test_a_phone_embed_at_done_keeps_its_plots_whole_and_scrolls_its_narration(train_page, chromium):
    """Issue 17, the same embed on a 390x844 phone at Done: the narration (the gradients'
    summaries, seven lines) took the plots' room: the graph's area began 43 px above the
    boundary's foot (the plot 91 px high, its lower half under the graph). Now the plots keep
    their size at Done, the graph starts under them, and the narration is three lines at most
    that scroll (more below than shown), above the player."""
    with phone_embed(train_page, chromium) as embed:
        embed.wait_for_selector('#graph[data-camera="still"]')
        opening = embed.locator("#boundary").bounding_box()
        to_done(embed)
        curve, boundary = embed.locator("#loss-curve").bounding_box(), embed.locator("#boundary").bounding_box()
        graph, bar = embed.locator(".graph-wrap").bounding_box(), embed.locator(".embed-bar").bounding_box()
        assert boundary["height"] >= opening["height"] - 1 and boundary["height"] >= 80, (boundary, opening)
        assert boundary["y"] + boundary["height"] <= graph["y"] + 1, (boundary, graph)   # not under the graph
        assert curve["height"] >= 120, curve
        assert graph["height"] >= 0.4 * 844 - 30, graph
        line = embed.evaluate("""() => { const n = document.querySelector('#narration'); const r = n.getBoundingClientRect();
          return {top: r.top, bottom: r.bottom, height: r.height, scroll: n.scrollHeight, client: n.clientHeight,
                  lineHeight: parseFloat(getComputedStyle(n).lineHeight)}; }""")
        assert line["scroll"] > line["client"] + line["lineHeight"], line   # collapsed: more below
        assert line["height"] <= 3 * line["lineHeight"] + 16, line
        assert line["bottom"] <= bar["y"] + 1 and line["top"] >= graph["y"] + graph["height"] - 1, (line, bar, graph)
        assert embed.errors == []
        shoot(embed, "embed-train-phone-done-whole-390x844.png")
