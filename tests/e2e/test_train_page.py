"""Train mode on the page (issue 15 §3, its "Done when"): a lecturer opens "XOR, seed 003",
presses Train, sees the loss fall to 0.0132 and the boundary form, picks iteration 100 and
steps its backward pass with that iteration's numbers, then opens seed 5 and sees the dead
unit. Also Pause and Step, the no_zero_grad bug beside its fix, and a link that keeps the
train settings and the chosen iteration. Every wait is on a data-* attribute the page sets."""
from __future__ import annotations

import json
import math

from page_helpers import choose, node, trace

SEED_003 = "train-xor-seed1"
SEED_5 = "train-xor-seed5"


def trained(page, preset: str) -> None:
    """Choose `preset`, press Train and wait until the whole run is shown."""
    choose(page, preset)
    assert page.locator("#mode").input_value() == "train"
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')


def canvas_colours(page) -> int:
    """How many different colours the boundary canvas holds (a blank one: 1)."""
    return page.evaluate("""() => {
        const c = document.querySelector('#boundary');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < d.length; i += 4 * 97) seen.add(d.slice(i, i + 4).join());
        return seen.size;
    }""")


def test_seed_003_learns_the_loss_falls_to_0_0132_and_the_boundary_forms(explorer):
    page = explorer.page
    choose(page, SEED_003)
    # the curve's growth, seen as it happens
    page.evaluate("""() => {
        window.pointsSeen = [];
        const svg = document.querySelector('#loss-curve');
        new MutationObserver(() => window.pointsSeen.push(Number(svg.dataset.points)))
            .observe(svg, { attributes: true, attributeFilter: ['data-points'] });
    }""")
    assert page.locator("#boundary").get_attribute("data-drawn") == "false"
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    curve = page.locator("#loss-curve")
    assert curve.get_attribute("data-points") == "301"
    seen = sorted(set(page.evaluate("window.pointsSeen")))
    assert len([n for n in seen if 0 < n < 301]) >= 5, seen   # it grew, it did not jump
    status = page.locator("#train-status")
    assert round(float(status.get_attribute("data-loss")), 4) == 0.0132
    assert "iteration 300 of 0–300" in status.inner_text()
    assert "loss 0.0132" in status.inner_text() and "accuracy 100%" in status.inner_text()
    boundary = page.locator("#boundary")
    assert boundary.get_attribute("data-drawn") == "true"
    assert boundary.get_attribute("data-iteration") == "300"
    assert boundary.get_attribute("data-classes") == "2"
    assert boundary.get_attribute("data-agree") == "4"   # each XOR point on its class's side
    assert canvas_colours(page) >= 4
    assert not explorer.unexpected_errors()


def test_iteration_100_steps_its_backward_pass_with_its_numbers(explorer):
    page = explorer.page
    trained(page, SEED_003)
    slider = page.locator("#train-iteration")
    slider.fill("100")
    slider.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    # the server's record of iteration 100, for the numbers the page must show
    program = page.evaluate("() => JSON.parse(document.querySelector('#presets').textContent)"
                            f".find(p => p.id === '{SEED_003}').program")
    answer = page.request.post(page.url.split("#")[0] + "api/train", data=json.dumps(
        {"program": program, "steps": 101, "lr": 0.5, "record": [100]}),
        headers={"Content-Type": "application/json"}).json()
    walk = answer["recorded"]["100"]
    kinds = [e["kind"] for e in walk["events"]]
    assert int(page.locator("#player").get_attribute("data-total")) == len(kinds)
    # step, by the player's keys, to the zero_grad step, then through the backward pass
    # the player's keys: focus off the slider (a range input keeps its arrows). Not a click
    # at the graph's corner: the camera's note may cover it there, and the click waits on it
    page.evaluate("document.activeElement?.blur()")
    zero = kinds.index("zero_grad") + 1
    for _ in range(zero):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#player[data-step="{zero}"]')
    assert "zero_grad()" in page.locator("#narration").inner_text()
    assert math.isclose(float(node(page, "L").get_attribute("data-value")), 0.1102, abs_tol=5e-5)
    assert json.loads(node(page, "b2").get_attribute("data-adjoint")) == [0, 0]  # zeroed
    last_backward = len(kinds) - 1 - kinds[::-1].index("accumulate")
    for _ in range(last_backward + 1 - zero):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'#player[data-step="{last_backward + 1}"]')
    b2 = json.loads(node(page, "b2").get_attribute("data-adjoint"))
    assert b2 == walk["grads"]["b2"]["data"]   # that iteration's gradient, not iteration 0's
    assert abs(b2[0] - (-0.0253)) < 5e-5
    page.keyboard.press("ArrowRight")   # the first update
    assert page.locator("#player .phase").inner_text() == "update"
    assert "-= 0.5" in page.locator("#narration").inner_text()
    assert not explorer.unexpected_errors()


def test_seed_5_shows_its_dead_unit_stuck_at_ln_2(explorer):
    page = explorer.page
    trained(page, SEED_5)
    status = page.locator("#train-status")
    assert round(float(status.get_attribute("data-loss")), 4) == round(math.log(2), 4)
    assert page.locator("#train-dead").inner_text() == "h: unit 3 dead (since iteration 0)"
    h = page.locator('g.node.dead[data-name="h"]')
    assert h.get_attribute("data-dead") == "h: unit 3 dead (since iteration 0)"
    assert h.locator("text.dead-tag").text_content() == "h: unit 3 dead (since iteration 0)"
    assert not explorer.unexpected_errors()


def test_pause_stops_the_run_and_step_shows_one_more_iteration(explorer):
    page = explorer.page
    choose(page, SEED_003)
    page.click("#train-step")   # from nothing: the stream starts, iteration 0 is shown
    page.wait_for_selector('#train[data-iteration="0"]')
    assert page.locator("#train").get_attribute("data-status") == "paused"
    page.click("#train-step")
    page.wait_for_selector('#train[data-iteration="1"]')
    assert page.locator("#loss-curve").get_attribute("data-points") == "2"
    page.click("#train-run")
    page.click("#train-pause")
    page.wait_for_selector('#train[data-status="paused"]')
    at = int(page.locator("#train").get_attribute("data-iteration"))
    assert at < 300
    page.click("#train-step")
    page.wait_for_selector(f'#train[data-iteration="{at + 1}"]')
    page.click("#train-run")   # goes on from there to the end
    page.wait_for_selector('#train[data-status="done"]')
    assert page.locator("#loss-curve").get_attribute("data-points") == "301"


def test_the_no_zero_grad_bug_is_drawn_beside_the_fix(explorer):
    page = explorer.page
    trained(page, "train-no-zero-grad")
    assert page.locator("#train-bug").is_checked()
    assert page.locator("#loss-curve path.loss-line.run").count() == 1
    assert page.locator("#loss-curve path.loss-line.fix").count() == 1
    text = page.locator("#train-status").inner_text()
    assert "(with zero_grad: 0.0132)" in text and "loss 0.0132" not in text


def test_a_link_keeps_the_train_settings_and_the_chosen_iteration(explorer, chromium):
    page = explorer.page
    choose(page, SEED_003)
    page.fill("#train-lr", "0.25")
    page.locator("#train-lr").dispatch_event("change")
    slider = page.locator("#train-iteration")
    slider.fill("100")
    slider.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    url = page.url
    assert "#s=" in url
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = context.new_page()
        other.goto(url)
        other.wait_for_selector('#player[data-iteration="100"]')
        other.wait_for_selector('#app[data-status="ready"]')
        assert other.locator("#mode").input_value() == "train"
        assert other.locator("#train-lr").input_value() == "0.25"
        assert other.locator("#train-steps").input_value() == "301"
        assert other.locator("#train-iteration").input_value() == "100"
        total = other.locator("#player").get_attribute("data-total")
        # the embed of that link steps the same iteration's walk
        embed = context.new_page()
        embed.goto(url.replace("/#", "/embed#"))
        embed.wait_for_selector('#embed[data-status="ready"][data-iteration="100"]')
        assert embed.locator("#player").get_attribute("data-total") == total
        dead = embed.locator('g.node.dead[data-name="h"]')   # with the iteration's dead units
        assert dead.get_attribute("data-dead") == "h: units 0, 1 dead (since iteration 0)"
    finally:
        context.close()


def test_the_three_spirals_reach_100_percent_on_the_page(explorer):
    page = explorer.page
    choose(page, "train-spirals")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    assert "accuracy 100%" in page.locator("#train-status").inner_text()
    boundary = page.locator("#boundary")
    assert boundary.get_attribute("data-classes") == "3"
    # the heat map's 48x48 cells are coloured by their centres: a point near the boundary may
    # sit in a cell of the neighbouring class (293 of 300 here); a boundary that had not formed
    # would agree with about a third
    assert int(boundary.get_attribute("data-agree")) >= 285
    assert page.locator("#loss-curve").get_attribute("data-points") == "3000"
    # each unit with the iteration it died at, as `gradwalk train` says (not the first's for all)
    assert page.locator("#train-dead").inner_text() == (
        "h: units 32 (since iteration 3), 36 (since iteration 16), 40 (since iteration 32) dead")
    # the tag on h names all three units, its "(since ...)" the part it may leave to its
    # tooltip (it was cut at the first "(since" to "h: units 32": review livefix14 §3)
    tag = page.locator('g.node.dead[data-name="h"] text.dead-tag')
    drawn = " ".join(tag.locator("tspan:not(.dead-since)").all_text_contents())
    assert " ".join(drawn.split()) == "h: units 32, 36, 40 dead"
    assert tag.locator(".dead-since").text_content() == " (since iterations 3, 16, 32)"


def test_a_refused_run_says_why_and_other_modes_hide_the_panel(explorer):
    page = explorer.page
    choose(page, SEED_003)
    page.fill("#train-steps", "20000")   # over the limit: kept in the box, refused under it
    page.locator("#train-steps").dispatch_event("change")
    assert page.locator("#train-steps").input_value() == "20000"
    assert page.locator("#train-steps").get_attribute("aria-invalid") == "true"
    page.fill("#train-steps", "301")
    trace(page, "w = [1.0, -2.0]\nL = w * w\n")   # a loss that is not a scalar
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="error"]')
    assert "scalar loss" in page.locator(".program-error").inner_text()
    status = page.locator("#train-status").inner_text()
    assert status.startswith("Not trained: training needs a scalar loss")
    page.select_option("#mode", "reverse")
    page.wait_for_selector("#train", state="hidden")
    page.select_option("#mode", "train")
    page.wait_for_selector("#train", state="visible")
