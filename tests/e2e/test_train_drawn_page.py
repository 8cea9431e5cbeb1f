"""Train mode says which iteration's pass the graph draws (a review of issue 15 §3: after ▶ Train
the status line read "iteration 300 ..." while the graph and the player stepped the program's own
pass, its starting weights, until "Step it" was pressed, and nothing on screen said so). The line
over the slider (#train-drawn) names the iteration whose numbers the graph shows, and those
numbers are that iteration's: the loss node's value equals losses[k] of POST /api/train's answer.
Every wait is on a data-* attribute the page sets."""
from __future__ import annotations

import json
import math
import pathlib

import pytest
from page_helpers import choose, choose_theme, leave_editor, node

SEED_003 = "train-xor-seed1"
SHOTS = pathlib.Path("/tmp/gradwalk-train-shots")


def train_answer(page) -> dict:
    """POST /api/train for the run the panel's settings describe (the preset's program)."""
    program = page.evaluate("() => JSON.parse(document.querySelector('#presets').textContent)"
                            f".find(p => p.id === '{SEED_003}').program")
    body = {"program": program, "steps": int(page.locator("#train-steps").input_value()),
            "lr": float(page.locator("#train-lr").input_value())}
    return page.request.post(page.url.split("#")[0] + "api/train", data=json.dumps(body),
                             headers={"Content-Type": "application/json"}).json()


def loss_drawn_at_done(page) -> float:
    """The loss node's value in the graph once the player is at Done (End)."""
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-step="%s"]' % page.locator("#player").get_attribute("data-total"))
    return float(node(page, "L").get_attribute("data-value"))


def test_after_train_the_page_names_the_pass_the_graph_draws_with_its_numbers(explorer):
    page = explorer.page
    choose(page, SEED_003)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    losses = train_answer(page)["losses"]
    assert len(losses) == 301
    # the run's line describes iteration 300; the graph is the program's own pass: iteration 0
    assert page.locator("#train-status").inner_text().startswith("iteration 300 of 0–300 · loss 0.0132")
    drawn = page.locator("#train-drawn")
    assert drawn.get_attribute("data-iteration") == "0"
    assert drawn.inner_text() == "The graph shows iteration 0 (the starting weights), not 300"
    assert page.locator("#train-open").inner_text() == "Step iteration 300"
    assert math.isclose(loss_drawn_at_done(page), losses[0], rel_tol=1e-9)   # 0.838159
    assert page.locator("#narration").inner_text().startswith("Iteration 0 (the starting weights): ")

    page.click("#train-open")
    page.wait_for_selector('#player[data-iteration="300"]')
    page.wait_for_selector('#app[data-status="ready"]')
    assert drawn.get_attribute("data-iteration") == "300"
    assert drawn.inner_text() == "The graph shows iteration 300"
    assert drawn.get_attribute("title") == ("The graph steps iteration 300: its forward, zero_grad, backward "
                                            "and update, with that iteration's numbers.")
    assert math.isclose(loss_drawn_at_done(page), losses[300], rel_tol=1e-9)   # 0.0132
    assert page.locator("#narration").inner_text().startswith("Iteration 300: ")
    assert not explorer.unexpected_errors()


def test_a_slider_moved_says_the_graph_is_not_that_iteration_until_it_is(explorer):
    page = explorer.page
    choose(page, SEED_003)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    # the thumb dragged to 57 and not let go: an "input" without a "change"
    page.evaluate("""() => { const s = document.querySelector('#train-iteration');
        s.value = '57'; s.dispatchEvent(new Event('input', { bubbles: true })); }""")
    drawn = page.locator("#train-drawn")
    assert drawn.inner_text() == "The graph shows iteration 0 (the starting weights), not 57"
    assert page.locator("#train-open").inner_text() == "Step iteration 57"
    # let go: the graph is asked for iteration 57, and the line says so while it comes
    page.evaluate("""() => { window.drawnSeen = [];
        const line = document.querySelector('#train-drawn');
        new MutationObserver(() => window.drawnSeen.push(line.textContent))
            .observe(line, { childList: true, characterData: true, subtree: true }); }""")
    page.locator("#train-iteration").dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="57"]')
    page.wait_for_selector('#train-drawn[data-iteration="57"][data-loading=""]')
    assert drawn.inner_text() == "The graph shows iteration 57"
    assert page.evaluate("window.drawnSeen")[0] == ("Loading iteration 57… the graph still shows "
                                                    "iteration 0 (the starting weights)")
    assert not explorer.unexpected_errors()


@pytest.mark.parametrize("width, height, theme", [(1280, 800, "light"), (1024, 768, "projector")])
def test_the_line_shares_the_sliders_row_after_train(open_explorer, width, height, theme):
    """The panel after Train at a desktop's and a projector's size (screenshots looked at)."""
    explorer = open_explorer(width, height)
    page = explorer.page
    choose_theme(page, theme)
    choose(page, SEED_003)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    drawn = page.locator("#train-drawn")
    assert drawn.is_visible() and drawn.get_attribute("data-iteration") == "0"
    # the line shares the slider's row with the button (one line), over the graph
    box, button = drawn.bounding_box(), page.locator("#train-open").bounding_box()
    slider = page.locator("#train-iteration").bounding_box()
    assert box["x"] + box["width"] <= button["x"] and button["x"] + button["width"] <= width, (box, button)
    assert abs((box["y"] + box["height"] / 2) - (slider["y"] + slider["height"] / 2)) < 4, (box, slider)
    assert box["height"] < 2 * float(drawn.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 30")), box
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SHOTS / f"train-drawn-{width}-{theme}.png")
    assert not explorer.unexpected_errors()
