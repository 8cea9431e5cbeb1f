"""Train mode's status line never claims what the graph does not show (review of s15 §1). With
iteration 299 chosen and stepped, Iterations lowered to 101 (the choice clamped to 100) said
"iteration 100 of 0–100, stepped in the graph" while the graph drew the former run's 299; a
new learning rate was not even trained, the line and the graph both the former run's. Now the
run trains again and its chosen iteration is stepped in the graph; until it is drawn the line
says "loading into the graph", and "stepped in the graph" only of the walk the graph draws."""
from __future__ import annotations

import json
import math

import pytest

import gradwalk
from gradwalk.server.presets import presets
from page_helpers import trained_and_stepped

SEED_003 = "train-xor-seed1"
# Every change of the status line or the line naming the graph's pass, as it was written.
RECORD = """() => {
    window.said = [];
    const status = document.querySelector('#train-status'), drawn = document.querySelector('#train-drawn');
    const note = () => window.said.push({status: status.textContent, iteration: drawn.dataset.iteration,
                                         loading: drawn.dataset.loading, drawn: drawn.textContent});
    const watch = new MutationObserver(note);
    for (const n of [status, drawn]) watch.observe(n, {childList: true, characterData: true, subtree: true, attributes: true});
}"""


def _program() -> str:
    return next(p["program"] for p in presets() if p["id"] == SEED_003)


def _stepped_299(page) -> None:
    """Train seed 003 to its end and step iteration 299 in the graph."""
    trained_and_stepped(page, SEED_003, 299)
    page.wait_for_selector('#train-drawn[data-iteration="299"][data-loading=""]')
    assert page.inner_text("#train-status").startswith("iteration 299 of 0–300, stepped in the graph")


def _said_only_what_is_drawn(said: list[dict], k: int) -> None:
    """'stepped in the graph' only while the graph draws iteration k, loaded, of these settings."""
    assert said, "the status line and the graph's line never changed"
    for line in said:
        if "stepped in the graph" in line["status"]:
            assert line["status"].startswith(f"iteration {k} of ")
            assert (line["iteration"], line["loading"]) == (str(k), ""), line
            assert line["drawn"] == f"The graph shows iteration {k}", line
    loading = [line for line in said if line["loading"] == str(k)]
    assert loading, said   # the new walk was fetched
    for line in loading:   # meanwhile the line says so of iteration k, if it names k
        assert not line["status"].startswith(f"iteration {k} of ") or \
            ", loading into the graph · " in line["status"], line


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_lowered_iterations_step_the_new_runs_iteration(open_explorer, width, height):
    explorer = open_explorer(width, height)
    page = explorer.page
    _stepped_299(page)
    page.evaluate(RECORD)
    steps = page.locator("#train-steps")
    steps.fill("101")
    steps.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#train-drawn[data-iteration="100"][data-loading=""]')
    page.wait_for_function("() => document.querySelector('#train-status').textContent"
                           ".startsWith('iteration 100 of 0–100, stepped in the graph')")
    assert page.inner_text("#train-drawn") == "The graph shows iteration 100"
    assert page.inner_text("#narration").startswith("Iteration 100: ")
    _said_only_what_is_drawn(page.evaluate("window.said"), 100)
    page.screenshot(path=f"/tmp/fixes16_train_follows_steps_{width}.png")
    assert not explorer.unexpected_errors()


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
def test_a_new_learning_rate_trains_and_steps_its_iteration(open_explorer, width, height):
    explorer = open_explorer(width, height)
    page = explorer.page
    _stepped_299(page)
    asked = []
    page.on("request", lambda r: asked.append(json.loads(r.post_data))
            if r.method == "POST" and "/api/train" in r.url else None)
    page.evaluate(RECORD)
    lr = page.locator("#train-lr")
    lr.fill("0.3")
    lr.dispatch_event("change")
    # the run of lr 0.3 trained again, and its iteration 299 recorded for the graph
    page.wait_for_function("() => window.said.some((l) => l.loading === '299')")
    page.wait_for_selector('#train-drawn[data-iteration="299"][data-loading=""]')
    page.wait_for_selector('#train[data-status="done"]')
    page.wait_for_function("() => document.querySelector('#train-status').textContent"
                           ".startsWith('iteration 299 of 0–300, stepped in the graph')")
    assert any(body.get("lr") == 0.3 and body.get("record") == [299] for body in asked), asked
    expected = gradwalk.train(_program(), steps=301, lr=0.3)["losses"][299]
    loss = float(page.get_attribute("#train-status", "data-loss"))
    assert math.isclose(loss, expected, rel_tol=1e-9), (loss, expected)
    assert not math.isclose(loss, gradwalk.train(_program(), steps=301, lr=0.5)["losses"][299],
                            rel_tol=1e-3)
    _said_only_what_is_drawn(page.evaluate("window.said"), 299)
    assert page.inner_text("#train-drawn") == "The graph shows iteration 299"
    page.screenshot(path=f"/tmp/fixes16_train_follows_lr_{width}.png")
    assert not explorer.unexpected_errors()
