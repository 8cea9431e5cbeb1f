"""One limit of training iterations for a link, the Iterations box and the server (review
livefix14 §2): a link with train_steps 50000 opened "Iterations 50000 (0–49999)", a value the
box itself refuses, so typing 0, -5, 10001 or 2.5 reverted it to 50000. Now the link opens
clamped to 10,000 with a note; the boxes take plain numbers ("1e3" and "0x10" are refused)."""
from __future__ import annotations

import base64
import json
import zlib

from page_helpers import choose


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
            assert steps.input_value() == "10000", typed   # the store's, a value the box takes
        lr = other.locator("#train-lr")
        lr.fill("0x10")
        lr.dispatch_event("change")
        assert lr.input_value() == "0.5"
        lr.fill("1e-3")
        lr.dispatch_event("change")
        for _ in range(50):   # the address bar is written a moment after a change
            if _state_of(other.url).get("train_lr") == 0.001:
                break
            other.wait_for_timeout(100)
        assert _state_of(other.url)["train_lr"] == 0.001
    finally:
        context.close()
