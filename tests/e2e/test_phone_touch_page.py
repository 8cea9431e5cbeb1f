"""Phones and tablets (issue 17, section 2): the explorer and the embed at 390x844 and
820x1180 with Playwright's touch emulation (has_touch, is_mobile, device scale 2). Each
assertion is on real geometry (bounding boxes, scrollWidth, font sizes); swipes and pinches
are touches dispatched through the DevTools protocol (Input.dispatchTouchEvent), so the
browser's own gesture handling runs: a swipe on the graph steps, a vertical swipe outside it
scrolls the page."""
from __future__ import annotations

import math

import pytest
from page_helpers import chain, wait_step
from test_links import fragment

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
SIZES = [(390, 844), (820, 1180)]
TARGET_PX = 44  # a finger's least target (Apple; WCAG 2.5.5)
READABLE_PX = 14  # a node's numbers on screen at Fit (viewport.js MIN_TEXT_PX)
NUM_FONT = 18  # layout.js METRICS.numFont
# A touch that ends within this many CSS px of where it began is a tap to Chromium
# (ui/events/gestures/gesture_configuration.cc, max_touch_move_in_pixels_for_click_: 15 moves
# a tap, 15.5 does not, measured here), and its touch adjustment (a finger's default radius
# 25 px) gives the tap to the nearest button: a "swipe" that short presses a button.
TAP_SLOP_PX = 15


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def phone(request, chromium, app_url):
    """open(path="/", program=TANH) -> a page at `path` with the walk of `program`, ready,
    in a touch context at the size of the parameter."""
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height}, has_touch=True,
                                   is_mobile=True, device_scale_factor=2)

    def open_page(path: str = "/", program: str = TANH):
        page = context.new_page()
        page.set_default_timeout(20_000)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        page.goto(f"{app_url}{path}#{fragment({'v': 1, 'program': program})}")
        root = "#app" if path == "/" else "#embed"
        page.wait_for_selector(f'{root}[data-status="ready"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        page.cdp = context.new_cdp_session(page)
        return page

    open_page.size = request.param
    yield open_page
    context.close()


def box(page, selector: str) -> dict | None:
    return page.locator(selector).first.bounding_box()


def touch(page, kind: str, points: list[tuple[float, float]]) -> None:
    page.cdp.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def drag(page, start: tuple[float, float], end: tuple[float, float], moves: int = 8) -> None:
    """One finger from `start` to `end` (CSS px) in `moves` moves, whatever the browser
    makes of it: within TAP_SLOP_PX it is a tap."""
    (x0, y0), (x1, y1) = start, end
    touch(page, "touchStart", [start])
    for i in range(1, moves + 1):
        touch(page, "touchMove", [(x0 + (x1 - x0) * i / moves, y0 + (y1 - y0) * i / moves)])
    touch(page, "touchEnd", [])


def swipe(page, start: tuple[float, float], end: tuple[float, float], moves: int = 8) -> None:
    """One finger from `start` to `end` (CSS px), as a thumb's flick. Raises ValueError for
    a move within TAP_SLOP_PX: the browser taps instead (use `drag` for a tap's wobble)."""
    if math.dist(start, end) <= TAP_SLOP_PX:
        raise ValueError(f"a move of {math.dist(start, end):.1f} px is a tap, not a swipe")
    drag(page, start, end, moves)


def pinch(page, centre: tuple[float, float], start: float, end: float, moves: int = 8) -> None:
    """Two fingers either side of `centre`, `start` px apart to `end` px apart."""
    cx, cy = centre
    touch(page, "touchStart", [(cx - start / 2, cy), (cx + start / 2, cy)])
    for i in range(1, moves + 1):
        half = (start + (end - start) * i / moves) / 2
        touch(page, "touchMove", [(cx - half, cy), (cx + half, cy)])
    touch(page, "touchEnd", [])


def centre_of(b: dict) -> tuple[float, float]:
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def no_sideways_scroll(page) -> None:
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                          " document.body.scrollWidth]")
    assert sizes[0] <= sizes[1] and sizes[2] <= sizes[1], sizes


def small_targets(page, selector: str) -> list:
    """The visible elements of `selector` under TARGET_PX in either dimension."""
    return page.evaluate("""([sel, px]) => [...document.querySelectorAll(sel)]
      .map((e) => [e.getAttribute('aria-label') || e.textContent.trim(), e.getBoundingClientRect()])
      .filter(([, r]) => r.width > 0 && (r.width < px - 0.5 || r.height < px - 0.5))
      .map(([name, r]) => [name, Math.round(r.width), Math.round(r.height)])""", [selector, TARGET_PX])


# ---------------------------------------------------------------- 1. the program behind "Edit"

def test_the_graph_and_narration_come_first_and_the_program_waits_behind_edit(phone):
    page = phone()
    width, height = phone.size
    assert box(page, "#editor") is None  # collapsed
    toggle = page.locator("#toggle-program")
    assert toggle.inner_text() == "Edit"
    graph, narration, player = box(page, ".graph-wrap"), box(page, "#narration"), box(page, "#player")
    top = box(page, ".topbar")
    # the graph under the top bar, the narration under it, all above the player, on screen
    assert graph["y"] >= top["y"] + top["height"] - 1
    assert narration["y"] >= graph["y"] + graph["height"] - 1
    assert narration["y"] + narration["height"] <= player["y"] + 1
    assert graph["height"] >= 0.4 * height, graph  # the phone's graph was 196 px high
    assert top["height"] <= 0.12 * height, top  # the top bar in one or two rows, not three
    toggle.tap()
    editor = box(page, "#editor .editor")
    assert editor is not None and editor["height"] > 40
    # "Hide" on a phone, whose bar keeps one row with Trace shown too (narrow.css); its name
    # for a screen reader stays "Hide program"
    assert toggle.inner_text() == ("Hide" if width < 600 else "Hide program")
    assert toggle.get_attribute("aria-label") == "Hide program"
    assert toggle.get_attribute("aria-expanded") == "true"
    no_sideways_scroll(page)
    toggle.tap()
    assert box(page, "#editor") is None
    assert page.errors == []


# ---------------------------------------------------------------- 2. the bottom bar, gestures

def test_the_player_is_a_bottom_bar_of_finger_sized_targets(phone):
    page = phone()
    width, height = phone.size
    player = box(page, "#player")
    assert abs(player["y"] + player["height"] - height) <= 1, player  # at the bottom edge
    assert player["x"] <= 1 and player["width"] >= width - 1
    assert player["height"] <= 0.3 * height, player
    nxt = box(page, "#player .btn.forward")
    assert nxt["y"] >= height / 2  # in the thumb's reach: the lower half
    assert small_targets(page, "#player .btn, #player select, .zoom-controls .btn") == []
    assert box(page, "#player .scrubber")["height"] >= TARGET_PX - 0.5
    # with the program open the page scrolls, and the bar stays at the bottom of the screen
    page.locator("#toggle-program").tap()
    page.evaluate("() => window.scrollTo(0, 200)")
    player = box(page, "#player")
    assert abs(player["y"] + player["height"] - height) <= 1, player
    # nothing is left under the bar: the page's end clears it
    bottom = page.evaluate("() => document.querySelector('#narration').getBoundingClientRect().bottom + window.scrollY")
    full = page.evaluate("() => document.documentElement.scrollHeight")
    assert bottom <= full - player["height"] + 1


def test_a_swipe_on_the_graph_steps_and_a_vertical_swipe_beside_it_scrolls(phone):
    page = phone()
    width, height = phone.size
    wait_step(page, 0)
    cx, cy = centre_of(box(page, ".graph-wrap"))
    swipe(page, (cx + 80, cy), (cx - 80, cy + 10))  # right to left: next
    wait_step(page, 1)
    swipe(page, (cx + 80, cy), (cx - 80, cy))
    wait_step(page, 2)
    swipe(page, (cx - 80, cy), (cx + 80, cy))  # left to right: back
    wait_step(page, 1)
    swipe(page, (cx, cy - 100), (cx + 10, cy + 100))  # up and down on the graph: no step
    drag(page, (cx, cy), (cx + 12, cy))  # a wobble (a tap to the browser), no swipe
    assert page.locator("#player").get_attribute("data-step") == "1"
    # with the program open a phone's page is taller than the screen (a tablet's fits): a
    # vertical swipe on the side column (outside the graph) scrolls it
    page.locator("#toggle-program").tap()
    page.wait_for_selector("#editor .side")
    tall = page.evaluate("() => document.documentElement.scrollHeight > window.innerHeight + 50")
    assert tall or width > 600
    if not tall:
        return
    # (no "settle" swipe on the top bar first: its 15 px were a tap, on Reset example and then,
    # once a phone hid that, on "Hide program", which closed the program it meant to scroll)
    before = page.evaluate("() => window.scrollY")
    side = box(page, "#editor .side")
    ex, ey = centre_of(side)
    # from a point inside the side column, so the swipe never starts on the graph below it
    start = min(ey + 150, side["y"] + side["height"] - 10, height - 220)
    swipe(page, (ex, start), (ex, 60), moves=12)
    page.wait_for_function(f"() => window.scrollY > {before} + 40")
    assert page.locator("#player").get_attribute("data-step") == "1"
    assert page.locator("#toggle-program").get_attribute("aria-expanded") == "true"  # still open


# Swipes as touch events made in the page (the protocol's touches take tens of ms each on a
# loaded machine, and a glide is 300 ms): forward swipes, each once the camera is still, until
# one starts a glide; then, within that glide, a swipe back. -> [the step reached, the camera
# when the swipe back ended].
SWIPE_BACK_IN_GLIDE = """async ([x, y, root]) => {
  const svg = document.querySelector('#graph');
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const swipe = (dx) => {
    const target = document.elementFromPoint(x, y);
    const at = (d) => new Touch({ identifier: 7, target, clientX: x + d, clientY: y });
    const send = (type, touches, changed) => target.dispatchEvent(new TouchEvent(type,
      { touches, targetTouches: touches, changedTouches: changed, bubbles: true, cancelable: true }));
    send('touchstart', [at(-dx)], [at(-dx)]);
    send('touchend', [], [at(dx)]);
  };
  for (let i = 0; i < 20; i++) {  // the first steps may all be in view (an upright layout as narrow as it goes)
    while (svg.dataset.camera !== 'still') await frame();
    swipe(-80);
    await frame();
    if (svg.dataset.camera === 'moving') {
      const step = document.querySelector(root).dataset.step;
      swipe(80);
      return [step, svg.dataset.camera];
    }
  }
  return [null, 'no glide'];
}"""


@pytest.mark.parametrize("path", ["/", "/embed"])
def test_a_swipe_while_the_camera_glides_still_steps(phone, path):
    """A swipe that ends while the camera glides to the last step steps back: d3-zoom's
    touchend listener stops the event's propagation during its glide, and the swipe was lost
    (about one run in two of test_the_embed_on_a_phone failed so in CI). A chain of 12 lines:
    the tanh example is shown whole on a tablet (laid out top to bottom), its camera still."""
    page = phone(path, program=chain(12))
    root = "#player" if path == "/" else "#embed"  # which element carries the step
    cx, cy = centre_of(box(page, ".graph-wrap"))
    step, camera = page.evaluate(SWIPE_BACK_IN_GLIDE, [cx, cy, root])
    assert camera == "moving" and int(step) >= 1  # the case this test is for
    page.wait_for_selector(f'{root}[data-step="{int(step) - 1}"]', timeout=3_000)


def test_two_fingers_pinch_the_graph(phone):
    page = phone()
    svg = page.locator("#graph")
    before = float(svg.get_attribute("data-scale"))
    pinch(page, centre_of(box(page, ".graph-wrap")), 60, 220)
    after = float(svg.get_attribute("data-scale"))
    assert after > 1.8 * before, (before, after)
    assert svg.get_attribute("data-fitted") == "false"
    assert page.locator("#player").get_attribute("data-step") == "0"  # a pinch is no swipe


# ---------------------------------------------------------------- 3. tap, sheet, minimap, Fit

def test_a_tap_shows_the_node_in_a_bottom_sheet_over_the_bar(phone):
    page = phone()
    width, height = phone.size
    # t: in view at step 0 (the automatic view shows the output's side at a readable size)
    page.locator('g.node[data-name="t"]').tap()
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator("#detail .formula").inner_text() == "t = tanh(d)"  # its source, as hover marks it
    sheet, player = box(page, "#detail"), box(page, "#player")
    assert abs(sheet["y"] + sheet["height"] - player["y"]) <= 1, (sheet, player)
    assert sheet["x"] <= 1 and sheet["width"] >= width - 1
    trace_bar = box(page, ".graph-trace")
    assert trace_bar is not None
    assert trace_bar["y"] + trace_bar["height"] <= sheet["y"], (trace_bar, sheet)  # it covers nothing
    assert small_targets(page, "#detail .close, .graph-trace .btn") == []
    no_sideways_scroll(page)
    # what hover marks in the program is the tapped node's source
    page.locator("#toggle-program").tap()
    marked = page.eval_on_selector("#editor .editor", "e => [...e.querySelectorAll('.mark-hover')].map((m) => m.textContent).join('')")
    assert marked == "tanh(d)"
    page.locator("#detail .close").tap()
    page.wait_for_selector("#detail", state="hidden")


def test_no_minimap_no_sideways_scroll_and_fit_keeps_the_numbers_readable(phone):
    page = phone(program=chain(40))  # 79 nodes in a row: wider than any phone
    svg = page.locator("#graph")
    for _ in range(2):
        page.locator("#zoom-in").tap()
    page.wait_for_selector('#graph[data-camera="still"]')
    assert not page.locator(".minimap").is_visible()
    page.locator("#player .btn.forward").tap()  # x = 1.0: a number to measure
    wait_step(page, 1)
    page.locator("#zoom-fit").tap()
    page.wait_for_selector('#graph[data-fitted="whole"][data-camera="still"]')
    scale = float(svg.get_attribute("data-scale"))
    assert scale * NUM_FONT >= READABLE_PX - 1e-6, scale
    # the numbers on screen: their rendered size
    px = page.evaluate("""() => { const t = document.querySelector('#graph g.node .value-block .nums text');
      const r = t.getBoundingClientRect(); const v = document.querySelector('#graph').getBoundingClientRect();
      return [r.height, r.left >= v.left && r.right <= v.right]; }""")
    assert px[0] >= READABLE_PX, px  # the text's box, ascent to descent: over its font size
    assert px[1], px  # the first number on screen
    no_sideways_scroll(page)


# ---------------------------------------------------------------- the embed

def test_the_embed_on_a_phone(phone):
    page = phone("/embed")
    width, height = phone.size
    no_sideways_scroll(page)
    bar = box(page, ".embed-bar")
    assert bar["y"] + bar["height"] >= height - 20 and bar["y"] >= height / 2, bar
    assert small_targets(page, ".embed-bar .btn, .embed-bar .open-full") == []
    scale = float(page.locator("#graph").get_attribute("data-scale"))
    cx, cy = centre_of(box(page, ".graph-wrap"))
    swipe(page, (cx + 80, cy), (cx - 80, cy))
    page.wait_for_selector('#embed[data-step="1"]')
    swipe(page, (cx - 80, cy), (cx + 80, cy))
    page.wait_for_selector('#embed[data-step="0"]')
    pinch(page, (cx, cy), 60, 200)
    assert float(page.locator("#graph").get_attribute("data-scale")) > 1.5 * scale
