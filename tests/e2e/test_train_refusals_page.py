"""Train mode's numbers refused, not replaced (a newcomer's check, /tmp/newcomer20 53_*): lr
`abc` or Iterations 99999 snapped back to 0.5 or 301 and ▶ Train ran with those, without a
word. Now the box keeps what was typed, marked aria-invalid, the refusal under the boxes is the
CLI's ("'abc' is not a learning rate: give ..."), ▶ Train does not start, and the message goes
once the box reads. A link's refused lr or iterations is said in the link message and the
example's own value is used; a damaged link opened by a fresh visitor does not claim that
what they typed was kept. The spirals' boundary label says the status line's accuracy."""
from __future__ import annotations

import base64
import json
import zlib

import pytest
from page_helpers import choose, new_page

SEED_003 = "train-xor-seed1"
SHOTS = "/tmp/shots20/c20b"
LR_ABC = "'abc' is not a learning rate: give a number above 0 and at most 1,000,000, e.g. 0.1"


def _fragment(state: dict) -> str:
    """state.js encodeLink: "s=" + base64url(deflate-raw(JSON))."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packer.compress(json.dumps(state).encode()) + packer.flush()
    return "s=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _refused_on_train(page, box: str, typed: str, says: str) -> None:
    """Type `typed` into `box`, press ▶ Train: nothing trains, the box keeps it, marked."""
    page.fill(box, typed)
    page.click("#train-run")   # the box's "change" comes first, as a click's blur sends it
    assert page.locator("#train").get_attribute("data-status") == "idle"
    assert page.locator(box).input_value() == typed
    assert page.locator(box).get_attribute("aria-invalid") == "true"
    assert page.locator("#train-field-error").is_visible()
    assert page.inner_text("#train-field-error") == says


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_a_refused_number_is_kept_said_and_not_trained(open_explorer, size):
    page = open_explorer(*size).page
    choose(page, SEED_003)
    _refused_on_train(page, "#train-lr", "abc", LR_ABC)
    page.screenshot(path=f"{SHOTS}/lr_abc_{size[0]}.png")
    for typed in ("-1", "0", "1e7"):
        _refused_on_train(page, "#train-lr", typed, LR_ABC.replace("'abc'", f"'{typed}'"))
    # corrected: the message goes as it is typed, and the run trains with the new rate
    page.fill("#train-lr", "0.1")
    assert page.locator("#train-field-error").is_hidden()
    assert page.locator("#train-lr").get_attribute("aria-invalid") is None
    for typed in ("0", "10001", "99999"):
        _refused_on_train(page, "#train-steps", typed, f"'{typed}' is not a number of iterations: "
                          "give a whole number from 1 to 10,000, e.g. 300")
    page.screenshot(path=f"{SHOTS}/steps_99999_{size[0]}.png")
    page.fill("#train-steps", "40")
    assert page.locator("#train-field-error").is_hidden()
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    assert page.inner_text("#train-status").startswith("iteration 39 of 0–39")
    assert page.locator("#loss-curve").get_attribute("data-points") == "40"


@pytest.mark.parametrize("field, value, box, shown, says", [
    ("train_lr", -3, "#train-lr", "0.5", "This link's lr could not be used: '-3' is not a learning rate"),
    ("train_lr", "abc", "#train-lr", "0.5", "This link's lr could not be used: 'abc' is not a learning rate"),
    ("train_lr", 1e9, "#train-lr", "0.5", "'1000000000' is not a learning rate"),
    ("train_steps", 0, "#train-steps", "301", "This link's Iterations could not be used: '0' is not a "
     "number of iterations: give a whole number from 1 to 10,000, e.g. 300; it opens with the "
     "example's own Iterations."),
])
def test_a_links_refused_number_is_said_and_the_example_s_own_used(chromium, app_url,
                                                                   field, value, box, shown, says):
    contexts = []
    try:   # a fresh visitor: nothing typed, nothing in storage
        other = new_page(chromium, contexts, (1280, 800))
        state = {"v": 1, "preset": SEED_003, "mode": "train", field: value}
        other.goto(f"{app_url}/#{_fragment(state)}")
        other.wait_for_selector('#app[data-status="ready"]')
        assert other.locator(box).input_value() == shown
        assert says in other.inner_text("#link-message")
        assert "kept" not in other.inner_text("#link-message")   # a fresh visitor typed nothing
        if field == "train_steps":
            other.screenshot(path=f"{SHOTS}/link_steps_0_1280.png")
        other.goto(f"{app_url}/#s=garbage!!")   # a damaged link: no "What you had typed is kept"
        other.reload()
        other.wait_for_selector('#app[data-status="ready"]')
        assert other.inner_text("#link-message .text") == (
            "This link is damaged: its state could not be read (was it cut short when it was "
            "copied?).")
        other.screenshot(path=f"{SHOTS}/badfrag_fresh_1280.png")
        assert other.errors == []
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_the_spirals_boundary_label_says_the_status_lines_accuracy(open_explorer, size):
    """The canvas's label counted the raster cell under each point ("293 of 300 training
    points on their class's side") beside the status line's "accuracy 100%": now it says what
    the picture is and the model's own accuracy, the status line's number."""
    page = open_explorer(*size).page
    choose(page, "train-spirals")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    assert "accuracy 100%" in page.inner_text("#train-status")
    assert page.locator("#boundary").get_attribute("aria-label") == (
        "Decision boundary at iteration 2999: the model's class over the plane, a raster of "
        "48 by 48 cells, with the 300 training points; the model classifies 300 of them "
        "correctly (accuracy 100%)")
    page.screenshot(path=f"{SHOTS}/spirals_{size[0]}.png")
