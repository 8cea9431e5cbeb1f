"""Issue 14 section 2, as the page shows it: a short link the server refuses for its rate limit
(429) or its storage cap (507) leaves the full link in the Share panel and says why, at
1280x800 and 1024x768 in the projector theme (screenshots to GRADWALK_SHOTS when set)."""
from __future__ import annotations

import os

import pytest
from page_helpers import step_forward, wait_step
from test_links import LINKED, fragment, open_fresh, unpack

SHOTS = os.environ.get("GRADWALK_SHOTS")


@pytest.mark.parametrize("width, height", [(1280, 800), (1024, 768)])
@pytest.mark.parametrize("setting, value, says", [
    ("GRADWALK_LINK_RATE_LIMIT", "1/minute",
     "No short link (too many new short links from this address (at most 1 per minute); "
     "try again in "),
    ("GRADWALK_MAX_LINK_STORAGE_BYTES", "250",
     "No short link (this server has no room for more short links: they fill the 250 bytes "
     "it allows them); the full link was copied instead."),
])
def test_a_refused_short_link_says_why_and_leaves_the_full_link(chromium, monkeypatch, tmp_path,
                                                               width, height, setting, value,
                                                               says):
    from live_server import running_server

    monkeypatch.setenv("GRADWALK_DATA_DIR", str(tmp_path))   # an empty link database
    monkeypatch.setenv(setting, value)
    with running_server() as url:
        state = {"v": 1, "program": LINKED, "step": 0, "theme": "projector"}
        context, page, _ = open_fresh(chromium, f"{url}/#{fragment(state)}", width, height)
        try:
            page.click("#share")
            page.click("#copy-short-link")   # the first new link fits either bound
            page.wait_for_function("() => /\\/s\\//.test(document.querySelector("
                                   "'#share-panel').dataset.shortLink || '')")
            page.keyboard.press("Escape")
            step_forward(page, 2)
            page.click("#share")
            page.click("#copy-short-link")   # a second new state: refused
            page.wait_for_selector('#share-panel[data-short-link="failed"]')
            assert page.locator("#share-status").inner_text().startswith(says)
            assert unpack(page.locator("#share-link").input_value())["step"] == 2
            wait_step(page, 2)
            if SHOTS:
                kind = setting.split("_")[-2].lower()
                page.screenshot(path=f"{SHOTS}/refused-{kind}-{width}x{height}.png")
        finally:
            context.close()
