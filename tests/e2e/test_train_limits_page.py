"""One limit of training iterations for a link, the Iterations box and the server (review
livefix14 §2): a link with train_steps 50000 opened "Iterations 50000 (0–49999)", a value the
box itself refuses, so typing 0, -5, 10001 or 2.5 reverted it to 50000. Now the link opens
clamped to 10,000 with a note; the boxes take plain numbers ("1e3" and "0x10" are refused, and
kept in the box as typed: test_train_refusals_page.py)."""
from __future__ import annotations

import base64
import json
import zlib

from page_helpers import choose, trained_and_stepped


def _fragment(state: dict) -> str:
    """state.js encodeLink: "s=" + base64url(deflate-raw(JSON))."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packer.compress(json.dumps(state).encode()) + packer.flush()
    return "s=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _state_of(url: str) -> dict:
    body = url.split("#s=", 1)[1]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    return json.loads(zlib.decompress(raw, -15))


def test_a_link_past_the_limit_opens_clamped_and_the_boxes_read_plain_numbers(explorer, chromium,
                                                                              app_url):
    page = explorer.page
    choose(page, "train-xor-seed1")
    page.wait_for_function("() => location.hash.startsWith('#s=')")
    state = {**_state_of(page.url), "train_steps": 50_000}
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = context.new_page()
        other.set_default_timeout(30_000)
        other.goto(f"{app_url}/#{_fragment(state)}")
        other.wait_for_selector('#app[data-status="ready"]')
        steps = other.locator("#train-steps")
        assert steps.input_value() == "10000"
        assert "50,000 training iterations; the most is 10,000" in other.inner_text("#link-message")
        for typed in ("0", "-5", "10001", "2.5", "1e3"):
            steps.fill(typed)
            steps.dispatch_event("change")
            # kept as typed and refused (test_train_refusals_page.py); the store keeps 10000
            assert (steps.input_value(), steps.get_attribute("aria-invalid")) == (typed, "true")
            assert _state_of(other.url)["train_steps"] == 10_000
        lr = other.locator("#train-lr")
        lr.fill("0x10")
        lr.dispatch_event("change")
        assert "\n'0x10' is not a learning rate: give" in other.inner_text("#train-field-error")
        lr.fill("1e-3")
        lr.dispatch_event("change")
        for _ in range(50):   # the address bar is written a moment after a change
            if _state_of(other.url).get("train_lr") == 0.001:
                break
            other.wait_for_timeout(100)
        assert _state_of(other.url)["train_lr"] == 0.001
    finally:
        context.close()


def _url_state_with(page, **fields) -> dict:
    """The address bar's state once it holds `fields` (it is written a moment after a change);
    the last state read when it never does."""
    state = {}
    for _ in range(50):
        state = _state_of(page.url)
        if all(state.get(k) == v for k, v in fields.items()):
            break
        page.wait_for_timeout(100)
    return state


def test_lowering_the_iterations_clamps_the_iteration_chosen(open_explorer, app_url):
    """Review livemsg14 §2: the slider at the run's end (299), then Iterations 101, left
    train_iteration 299 in the page's state, so its URL (and a live room opened from it)
    named an iteration a run of 101 has not. The state now holds 100, the run's last."""
    explorer = open_explorer(1280, 800)
    page = explorer.page
    trained_and_stepped(page, "train-xor-seed1", 299)
    assert _url_state_with(page, train_iteration=299)["train_iteration"] == 299
    steps = page.locator("#train-steps")
    steps.fill("101")
    steps.dispatch_event("change")
    state = _url_state_with(page, train_steps=101, train_iteration=100)
    assert (state["train_steps"], state["train_iteration"], state["train_chosen"]) == (101, 100, True)
    # the run of 101 is trained for the iteration chosen; the slider ends at its last
    page.wait_for_function("() => document.querySelector('#train-status').dataset.iteration === '100'"
                           " && document.querySelector('#train-iteration').max === '100'")
    assert page.locator("#train-iteration").input_value() == "100"
    # the graph follows: it steps the new run's iteration 100 (it kept drawing the former
    # run's 299 while the status line said "stepped in the graph": test_train_follows_page.py)
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    assert page.inner_text("#train-open") == "Step iteration 100"
    assert page.inner_text("#train-drawn") == "The graph shows iteration 100"
    assert page.inner_text("#train-status").startswith("iteration 100 of 0–100, stepped in the graph")
    # a live room opened from this page gets the clamped state (the server keeps it as sent)
    room = page.request.post(f"{app_url}/api/live", data=json.dumps(state),
                             headers={"Content-Type": "application/json"})
    assert room.ok, room.text()
    page.screenshot(path="/tmp/livemsg14_clamped_1280.png")
    assert not explorer.unexpected_errors()
