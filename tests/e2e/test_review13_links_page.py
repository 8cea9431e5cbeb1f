"""A newcomer's review (session 13) tried links no page makes: a quiz with Train mode, whose
Quiz menu is hidden (the quiz ran over iteration 0 with no way to turn it off), and an
iteration past the run's end ("The graph shows iteration 500, not 9"). Each opens as the
nearest state the page can show: no quiz in Train mode, the run's last iteration."""
from __future__ import annotations

import json
from pathlib import Path

from test_links import fragment, open_fresh

PRESETS = {p["id"]: p for p in json.loads(
    (Path(__file__).parents[2] / "server" / "presets.json").read_text())}
XOR = PRESETS["train-xor-seed1"]["program"]


def test_a_link_with_a_quiz_and_a_chosen_iteration_past_the_run(chromium, app_url):
    state = {"v": 1, "program": XOR, "mode": "train", "quiz": "adjoints", "train_steps": 10,
             "train_chosen": True, "train_iteration": 500}
    context, page, errors = open_fresh(chromium, f"{app_url}/#{fragment(state)}")
    try:
        page.wait_for_selector('#player[data-iteration="9"]', timeout=60_000)
        page.wait_for_selector('#app[data-status="ready"]')
        assert page.locator("#quiz").get_attribute("data-quiz") == "off"
        assert "Question" not in page.locator("body").inner_text()
        assert "500" not in page.locator("#train").inner_text()
        assert errors == []
    finally:
        context.close()
