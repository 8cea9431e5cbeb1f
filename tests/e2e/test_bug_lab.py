"""The bug lab (issue 9, section 4) in a real browser: a bug preset steps to its wrong number
with the engine's "BUG ..." narration, the page wears a "bug lab" badge while a switch is on,
and a permalink keeps the bug (the program, with its `# bugs:` line, is in the link)."""
from __future__ import annotations

import pytest
from page_helpers import adjoint, choose, leave_editor, wait_step

from gradwalk.engine.trace.runner import run_trace
from gradwalk.server.presets import presets

PROGRAMS = {p["id"]: p["program"] for p in presets()}


def _step_to(page, step: int) -> None:
    """From wherever the player is, to `step` by → and ← as a lecturer would."""
    leave_editor(page)
    now = int(page.locator("#player").get_attribute("data-step"))
    key = "ArrowRight" if step > now else "ArrowLeft"
    for _ in range(abs(step - now)):
        page.keyboard.press(key)
    wait_step(page, step)


def test_overwrite_preset_steps_to_the_wrong_number(explorer):
    page = explorer.page
    assert page.locator("#bug-badge").is_hidden()   # the first preset: no switch
    choose(page, "bug-overwrite")
    badge = page.locator("#bug-badge")
    assert badge.is_visible() and badge.inner_text() == "bug lab: overwrite"
    body = run_trace(PROGRAMS["bug-overwrite"])
    into_a = [e for e in body["events"] if e["kind"] == "accumulate" and e["input"] == "n0"]
    _step_to(page, into_a[0]["seq"] + 1)   # d's edge: ā = 1.5729
    assert adjoint(page, "a") == pytest.approx(1.5728954659318548, abs=1e-12)
    _step_to(page, into_a[1]["seq"] + 1)   # e's edge overwrites it
    assert adjoint(page, "a") == pytest.approx(-0.7864477329659274, abs=1e-12)
    narration = page.locator("#narration")
    assert narration.inner_text().startswith("BUG overwrite: ā = -0.7864 replaces the 1.5729")
    assert narration.get_attribute("data-bug") == "overwrite"
    page.keyboard.press("End")
    wait_step(page, len(body["events"]))
    assert "dL/da = -0.7864" in narration.inner_text()
    assert narration.get_attribute("data-bug") is None
    assert explorer.unexpected_errors() == []


def test_no_zero_grad_preset_doubles_and_says_why(explorer):
    page = explorer.page
    choose(page, "bug-no-zero-grad")
    body = run_trace(PROGRAMS["bug-no-zero-grad"])
    second = [e for e in body["events"] if e["kind"] == "seed"][1]
    _step_to(page, second["seq"] + 1)
    assert page.locator("#narration").inner_text().startswith(
        "BUG no_zero_grad: a second backward pass without zero_grad()")
    assert adjoint(page, "a") == pytest.approx(0.7864477329659274, abs=1e-12)  # .grad kept
    assert page.locator('g.node[data-name="d"]').get_attribute("data-adjoint") is None
    page.keyboard.press("End")
    wait_step(page, len(body["events"]))
    assert adjoint(page, "a") == pytest.approx(2 * 0.7864477329659274, abs=1e-12)
    assert explorer.unexpected_errors() == []


def test_a_permalink_keeps_the_bug(explorer):
    page = explorer.page
    choose(page, "bug-wrong-order")
    url = page.url   # the state (preset, program) is in the fragment
    page.goto("about:blank")
    page.goto(url)
    page.wait_for_selector('#app[data-status="ready"]')
    assert page.locator("#bug-badge").inner_text() == "bug lab: wrong_order"
    page.keyboard.press("End")
    body = run_trace(PROGRAMS["bug-wrong-order"])
    wait_step(page, len(body["events"]))
    assert adjoint(page, "a") == 0.0 and adjoint(page, "b") == 0.0
    assert explorer.unexpected_errors() == []
