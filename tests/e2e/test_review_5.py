"""Findings of a new user's review of the lecture-hall page (issue 5, sections 3 and 5), in a
real browser: the embed's font scale keeps the graph's room and grows its labels; the
projector theme prints node numbers as large as the narration; the camera keeps the output
in view on load, each step's nodes whole (headers too) and the output with the leaves at the
end; a short link stays in the address bar until the walk changes, and "/" gets its `#s=`
once the first trace shows; small things of the Export menu, the top bar and Share."""
from __future__ import annotations

import pytest
from webm import webm_times
from page_helpers import chain, choose, leave_editor, trace, wait_step
from test_export import download, open_menu, set_range
from test_lecture_hall import OUTSIDE, still
from test_links import fragment

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"


@pytest.fixture
def open_page(chromium, app_url):
    """open_page(width, height, path="/", ready="#app"): a fresh page (fresh profile) at
    `path`, waited on until `ready`'s data-status is "ready"."""
    contexts = []

    def open_(width: int, height: int, path: str = "/", ready: str = "#app"):
        context = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(app_url + path)
        page.wait_for_selector(f'{ready}[data-status="ready"]')
        return page

    yield open_
    for context in contexts:
        context.close()


def text_sizes(page) -> dict:
    """The svg's height, the on-screen height of a node's value numbers (px), and the
    narration's font size (px)."""
    return page.evaluate("""() => {
      const svg = document.querySelector('svg.graph, #graph, .embed svg');
      const nums = document.querySelector('g.node .value-block .nums text').getBoundingClientRect();
      return {graph: svg.getBoundingClientRect().height, value: nums.height,
              narration: parseFloat(getComputedStyle(document.querySelector('.narration')).fontSize)};
    }""")


# ---------------------------------------------------------------- 1. the embed's font scale


def test_the_embeds_font_scale_keeps_the_graphs_room_and_grows_its_labels(open_page):
    link = "#" + fragment({"v": 1, "program": TANH})
    sizes = {}
    for font in (1, 2, 3):
        page = open_page(1000, 600, f"/embed?step=12&theme=projector&font={font}{link}", ready="#embed")
        page.wait_for_selector('#embed svg[data-camera="still"]', state="attached")
        sizes[font] = text_sizes(page)
        assert sizes[font]["graph"] >= 0.5 * 600, (font, sizes[font])  # was 328 at 2, 0 at 3
    assert sizes[2]["value"] >= 1.6 * sizes[1]["value"], sizes
    # 2.1997x at font 3 since the camera keeps 4 px from the edges (this stop): the labels grow
    assert sizes[3]["value"] >= 2.15 * sizes[1]["value"], sizes


# ---------------------------------------------------------------- 2. the projector's graph text


def test_the_projector_prints_node_numbers_as_large_as_the_narration(open_page):
    page = open_page(1280, 800)
    page.click("#view-menu summary")
    page.select_option("#theme", "projector")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'projector'")
    page.keyboard.press("Escape")
    # A graph too wide to be seen whole (a chain of 12 products) prints its numbers as large
    # as the narration (were 11-13 px against 23.6 px).
    trace(page, chain(12))
    page.locator("#player .scrubber").fill("5")
    wait_step(page, 5)
    still(page)
    sizes = text_sizes(page)
    assert sizes["value"] >= sizes["narration"], sizes
    # A graph that fits whole at the readable floor (14 px numbers) is shown whole instead,
    # in the explorer and the embed (issue 14: the tanh example's c, t and L were off screen
    # at 1024x768, and the embed's output cut at its right edge, at the projector's size).
    choose(page, "seed-tanh-fanout")
    page.locator("#player .scrubber").fill("3")  # values shown: a, b, c
    wait_step(page, 3)
    still(page)
    assert page.evaluate(OUTSIDE, "g.node .box") == []
    assert text_sizes(page)["value"] >= 14
    link = "#" + fragment({"v": 1, "program": TANH})
    embed = open_page(1000, 600, f"/embed?step=3&theme=projector{link}", ready="#embed")
    embed.wait_for_selector('#embed svg[data-camera="still"]', state="attached")
    assert embed.evaluate(OUTSIDE, "g.node .box") == []
    assert text_sizes(embed)["value"] >= 14


# ---------------------------------------------------------------- 3. the camera


def test_the_output_is_in_view_on_load_and_the_leaves_with_it_at_the_end(open_page):
    page = open_page(1280, 800)
    choose(page, "seed-sigmoid-net")
    still(page)
    assert page.evaluate(OUTSIDE, "g.node.output .box, g.node[data-name='y_hat'] .box") == []
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    still(page)
    # The sigmoid net is too wide for all its leaves at a readable scale: Done is an overview
    # (issue 9 review: the leaves whose gradients the narration reads were off screen), the
    # output and every leaf, zoomed out; the step before it is readable again (>= 14 px).
    assert page.evaluate(OUTSIDE, "g.node.output .box, g.node.role-leaf .box") == []
    page.keyboard.press("ArrowLeft")
    still(page)
    sizes = page.locator("g.node .nums text").evaluate_all(
        "els => els.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)")
    assert min(sizes) >= 13.9
    # The tanh example fits whole at a readable scale: at its end, output and every leaf.
    choose(page, "seed-tanh-fanout")
    still(page)
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    still(page)
    assert page.evaluate(OUTSIDE, "g.node.output .box, g.node.role-leaf .box") == []


def test_quick_steps_back_leave_no_node_cut_off_when_the_graph_fits_in_height(open_page):
    page = open_page(1024, 768)
    leave_editor(page)
    page.keyboard.press("End")
    for _ in range(4):
        page.keyboard.press("ArrowLeft")  # each interrupts the glide of the one before
    wait_step(page, int(page.locator("#player").get_attribute("data-total")) - 4)
    still(page)
    # The graph is 3 rows high and fits in height at this scale: no header is cut off.
    assert page.evaluate(OUTSIDE, "g.node .box") == []


# ---------------------------------------------------------------- 4. the address bar


def test_a_short_link_stays_in_the_address_bar_until_the_walk_changes(open_page, app_url):
    page = open_page(1000, 700)
    made = page.request.post(f"{app_url}/api/links", data={"state": {"v": 1, "program": TANH, "step": 5}})
    assert made.ok, made.text()
    short = made.json()["id"]
    page.goto(f"{app_url}/s/{short}")
    page.wait_for_selector('#app[data-status="ready"]')
    wait_step(page, 5)
    page.wait_for_selector('#app[data-url-step="5"]')
    assert page.evaluate("location.pathname + location.hash") == f"/s/{short}"
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#app[data-url-step="6"]')
    assert page.evaluate("location.pathname") == "/"
    assert page.evaluate("location.hash").startswith("#s=")


def test_the_first_trace_writes_the_link_without_any_interaction(open_page):
    page = open_page(1000, 700)
    page.wait_for_function("() => location.hash.startsWith('#s=')")
    assert page.evaluate("location.pathname") == "/"


# ---------------------------------------------------------------- 5. small things


def test_copy_buttons_have_titles(open_page):
    page = open_page(1600, 900)
    open_menu(page)
    for key in ("copy-md", "copy-tex"):
        title = page.locator(f'button[data-export="{key}"]').get_attribute("title")
        assert title and title != "undefined" and "Copy" in title, (key, title)


def test_the_webm_holds_its_last_step_for_a_full_step(open_page):
    page = open_page(1600, 900)
    if not page.evaluate("typeof MediaRecorder !== 'undefined' && MediaRecorder.isTypeSupported('video/webm')"):
        pytest.skip("this chromium has no MediaRecorder for WebM")
    set_range(page, 8, 11, 0.5)
    data, _ = download(page, "webm")
    times = webm_times(data)
    assert len(times) >= 4, times
    # The last frame's time is where players end the video: step 11 shows from 1.5 s for a
    # whole 0.5 s, so the video lasts about 2 s (was 1.498 s, step 11 shown for 0.02 s).
    duration = times[-1] / 1000
    assert duration >= 4 * 0.5 - 0.1, duration  # steps 8, 9, 10, 11, each 0.5 s (was 1.498)


def test_the_top_bar_is_one_line_at_1024(open_page):
    page = open_page(1024, 768)
    row = page.evaluate("""() => ['.topbar h1', '#trace', '#view-menu summary', '#preset'].map((s) => {
      const r = document.querySelector(s).getBoundingClientRect(); return (r.top + r.bottom) / 2; })""")
    assert max(row) - min(row) < 8, row


def test_the_share_panel_names_no_repository_path_alone(open_page):
    page = open_page(1280, 800)
    page.click("#share")
    hint = page.locator("#share-panel .share-hint").first.text_content()   # the link's (a live room's follows)
    assert "paste" in hint.lower() and "postMessage" in hint, hint
    assert "(docs/slides.md)" not in hint, hint
