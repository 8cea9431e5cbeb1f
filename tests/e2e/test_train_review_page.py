"""Issue 15's review of Train mode on the page: a chosen iteration is the one the panel
describes (status, the curve's marker, the boundary, the narration: item 1); the address bar
keeps changed train settings (item 2); a link or embed naming an iteration opens with its
run (item 4); the iteration wording counts from 0 and the loss axis's labels are whole (13).
Every wait is on a data-* attribute the page sets."""
from __future__ import annotations

import math
import pathlib

import pytest
from page_helpers import choose, choose_theme

SEED_003 = "train-xor-seed1"
SHOTS = pathlib.Path("/tmp/gradwalk-train-shots")


def choose_iteration(page, k: int) -> None:
    """Move the Iteration slider to `k`, press Step it, wait for its walk."""
    page.locator("#train-iteration").fill(str(k))
    page.click("#train-open")
    page.wait_for_selector(f'#player[data-iteration="{k}"]')
    page.wait_for_selector('#app[data-status="ready"]')


def shows_iteration_100(page) -> None:
    """The panel describes seed 003's iteration 100 (loss 0.1102) inside its whole run."""
    page.wait_for_selector('#train-status[data-iteration="100"]')
    status = page.locator("#train-status")
    assert math.isclose(float(status.get_attribute("data-loss")), 0.1102, abs_tol=5e-5)
    assert status.inner_text().startswith("iteration 100 of 0–300, stepped in the graph · loss 0.1102")
    # the whole run, once it has streamed in (the status names iteration 100 as soon as it
    # arrives: on a loaded machine the curve then held 148 points)
    page.wait_for_selector('#loss-curve[data-points="301"]')
    cursor = page.locator(".loss-cursor")
    assert cursor.evaluate("c => getComputedStyle(c).display") != "none"
    # the marker sits at x(100) of an axis 0..300
    x = page.evaluate("""() => {
        const c = document.querySelector('.loss-cursor'), ax = document.querySelector('#loss-curve .axis.x');
        const at = (v) => [...ax.querySelectorAll('.tick')].find(t => t.textContent === v)
            .querySelector('line').getBoundingClientRect();
        const mid = (r) => r.left + r.width / 2;
        return [mid(c.getBoundingClientRect()), mid(at('0')), mid(at('100')), mid(at('200'))];
    }""")
    assert abs(x[0] - x[2]) < 3 and x[1] < x[0] < x[3], x
    assert page.locator("#boundary").get_attribute("data-iteration") == "100"
    assert page.locator("#boundary").get_attribute("data-drawn") == "true"


def test_a_chosen_iteration_is_the_one_the_panel_and_narration_describe(explorer):
    page = explorer.page
    choose(page, SEED_003)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    assert page.locator("#train-status").inner_text().startswith("iteration 300 of 0–300 · loss 0.0132")
    choose_iteration(page, 100)
    shows_iteration_100(page)
    # the player's keys: focus off the slider (a range input keeps its arrows). Not a click
    # at the graph's corner: the camera's note may cover it there, and the click waits on it
    page.evaluate("document.activeElement?.blur()")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#player[data-step="1"]')
    assert page.locator("#narration").inner_text().startswith("Iteration 100: ")
    assert not explorer.unexpected_errors()


def test_the_iterations_box_and_the_status_line_say_one_count(open_explorer):
    """Issue 17 item 3: "Steps 301" beside "iteration 300 of 0–300" read as two counts; the box
    is "Iterations 301 (0–300)", the range the status line and the slider read."""
    SHOTS.mkdir(exist_ok=True)
    for width, height, theme in ((1280, 800, "light"), (1024, 768, "projector")):
        explorer = open_explorer(width, height)
        page = explorer.page
        choose_theme(page, theme)
        choose(page, SEED_003)
        box = page.locator("#train-steps").locator("xpath=..")
        assert box.inner_text().split() == ["Iterations", "(0–300)"]
        assert page.locator("#train-steps").input_value() == "301"
        assert page.locator("#train-steps").get_attribute("aria-label") == "Iterations"
        page.click("#train-run")
        page.wait_for_selector('#train[data-status="done"]')
        page.wait_for_selector('#loss-curve[data-points="301"]')   # one loss per iteration
        assert page.locator("#train-status").inner_text().startswith("iteration 300 of 0–300 · ")
        assert page.locator("#train-iteration").get_attribute("max") == "300"
        page.screenshot(path=SHOTS / f"train-iterations-{width}-{theme}.png")
        page.fill("#train-steps", "200")   # the note follows the box as it is typed in
        page.locator("#train-steps").dispatch_event("input")
        assert page.locator("#train-steps-range").inner_text() == "(0–199)"
        assert not explorer.unexpected_errors()


def test_the_loss_axis_labels_are_whole(explorer):
    page = explorer.page
    choose(page, "train-xor-tanh")   # its loss falls to 9.11e-4: a log axis down to 0.0001
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=60_000)
    labels = page.evaluate("""() => {
        const svg = document.querySelector('#loss-curve').getBoundingClientRect();
        return [...document.querySelectorAll('#loss-curve .axis.y text')]
            .map(t => [t.textContent, t.getBoundingClientRect().left - svg.left]);
    }""")
    assert "0.0001" in [t for t, _ in labels], labels
    assert all(left >= 0 for _, left in labels), labels


# The loss curve's boxes (px from the svg's top left, [left, top, right, bottom]): its axis
# titles with their font size, the tick labels that have text, the run's line; the svg's size
# and the theme's --stage-scale.
CURVE_BOXES = """() => {
  const svg = document.querySelector('#loss-curve'), b = svg.getBoundingClientRect();
  const rel = (e) => { const r = e.getBoundingClientRect(); return [r.left - b.left, r.top - b.top, r.right - b.left, r.bottom - b.top]; };
  return {size: [b.width, b.height],
          scale: parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--stage-scale')),
          titles: [...svg.querySelectorAll('.axis-title')].map((t) => ({
            axis: t.classList.contains('x') ? 'x' : 'y', text: t.textContent, box: rel(t),
            font: parseFloat(getComputedStyle(t).fontSize)})),
          ticks: [...svg.querySelectorAll('.axis text')].filter((t) => t.textContent).map((t) => [t.textContent, rel(t)]),
          line: rel(svg.querySelector('path.loss-line.run'))};
}"""


def overlap(a, b) -> bool:
    """Whether boxes [left, top, right, bottom] `a` and `b` share more than half a px."""
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


@pytest.mark.parametrize("size,theme", [((1024, 768), None), ((1024, 768), "projector"),
                                        ((1280, 800), None), ((1280, 800), "projector")],
                         ids=["1024-default", "1024-projector", "1280-default", "1280-projector"])
def test_the_loss_curve_names_its_axes(open_explorer, size, theme):
    """A newcomer: the curve had numbers on its axes and nothing saying what they count. Its
    titles, "iteration" under the x axis's numbers and "loss" beside the y axis's, lie in the
    svg's box, clear of the numbers and the curve, at the projector's size on a projector."""
    SHOTS.mkdir(exist_ok=True)
    explorer = open_explorer(*size)
    page = explorer.page
    if theme:
        choose_theme(page, theme)
    choose(page, SEED_003)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    page.wait_for_selector('#loss-curve[data-points="301"]')   # the data-points it kept
    seen = page.evaluate(CURVE_BOXES)
    titles = {t["axis"]: t for t in seen["titles"]}
    assert len(seen["titles"]) == 2, seen
    assert titles["x"]["text"] == "iteration" and titles["y"]["text"] == "loss", seen
    width, height = seen["size"]
    numbers = dict(seen["ticks"])
    assert {"0", "200", "0.01", "0.1", "1"} <= set(numbers), numbers   # the numbers are still there
    for title in titles.values():
        left, top, right, bottom = title["box"]
        assert left >= -0.5 and top >= -0.5 and right <= width + 0.5 and bottom <= height + 0.5, (title, width, height)
        assert [t for t, box in seen["ticks"] if overlap(title["box"], box)] == [], (title, seen["ticks"])
        assert not overlap(title["box"], seen["line"]), (title, seen["line"])
        # as large as the numbers (15 px), and grown as the page is on a projector (18.75 px)
        assert title["font"] >= 15 and abs(title["font"] - 15 * seen["scale"]) < 0.1, (title, seen["scale"])
    # "iteration" under the x axis's numbers; "loss" left of the y axis's, turned to read upwards
    assert titles["x"]["box"][1] >= max(numbers[t][3] for t in ("0", "200")) - 0.5, seen
    assert titles["y"]["box"][2] <= min(numbers[t][0] for t in ("0.01", "0.1", "1")) + 0.5, seen
    y_box = titles["y"]["box"]
    assert y_box[3] - y_box[1] > y_box[2] - y_box[0], y_box
    page.screenshot(path=SHOTS / f"loss-titles-{size[0]}-{theme or 'default'}.png")
    assert not explorer.unexpected_errors()


def test_the_address_bar_keeps_changed_train_settings(explorer, chromium):
    page = explorer.page
    choose(page, "train-xor-tanh")
    page.fill("#train-steps", "200")
    page.locator("#train-steps").dispatch_event("change")
    page.fill("#train-lr", "0.1")
    page.locator("#train-lr").dispatch_event("change")
    page.select_option("#train-optimizer", "adam")
    page.wait_for_function("() => document.querySelector('#train-optimizer').value === 'adam'")
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = context.new_page()
        other.goto(page.evaluate("location.href"))   # the address bar, not the Share link
        other.wait_for_selector('#app[data-status="ready"]')
        assert other.locator("#train-steps").input_value() == "200"
        assert other.locator("#train-lr").input_value() == "0.1"
        assert other.locator("#train-optimizer").input_value() == "adam"
    finally:
        context.close()


def test_a_link_and_an_embed_to_iteration_100_open_with_its_run(explorer, chromium):
    page = explorer.page
    choose(page, SEED_003)
    choose_iteration(page, 100)   # chosen before any Train: the run trains for its context
    shows_iteration_100(page)
    url = page.evaluate("location.href")
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = context.new_page()
        other.goto(url)
        other.wait_for_selector('#player[data-iteration="100"]')
        shows_iteration_100(other)
        embed = context.new_page()
        embed.goto(url.replace("/#", "/embed#"))
        embed.wait_for_selector('#embed[data-status="ready"][data-iteration="100"]')
        assert "Iteration 100: " in embed.locator(".narration").inner_text()
    finally:
        context.close()
