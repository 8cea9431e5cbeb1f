"""A trace past max_response_bytes on the page (issue 15 §1): the stream's only event is the
refusal (the light bound passes the limit, so the estimate is made before the graph event; it
once came after the graph). The page shows the error naming the setting beside the program,
the player without steps, and the faded graph of the last good trace. Screenshots at 1280x800 and
1024x768, light and projector, in /tmp/gradwalk-size-shots for looking at."""
from __future__ import annotations

import pathlib
import re
import sys

import pytest

from gradwalk.engine.trace.runner import trace_json
from page_helpers import chain, node, trace

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "server"))
from server_process import served  # noqa: E402

SHOTS = pathlib.Path("/tmp/gradwalk-size-shots")
SMALL = "a = 2.0\nL = a * a\n"


@pytest.mark.parametrize("size, theme", [((1280, 800), "light"), ((1024, 768), "light"),
                                         ((1280, 800), "projector")])
def test_a_trace_over_the_size_limit_shows_the_error_naming_the_setting(chromium, tmp_path,
                                                                         size, theme):
    SHOTS.mkdir(exist_ok=True)
    big = chain(120)   # 239 nodes
    limit = 4 * len(trace_json(SMALL))
    assert len(trace_json(big)) > 2 * limit   # refused whatever the estimate's slack
    with served(tmp_path, data_dir=tmp_path, max_response_bytes=limit) as server:
        context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server.url)
            page.wait_for_selector('#app[data-status]')
            page.evaluate("t => { const m = document.querySelector('#theme'); m.value = t;"
                          " m.dispatchEvent(new Event('change')); }", theme)
            trace(page, SMALL)   # a program within the limit traces
            trace(page, big, status="error")
            box = page.locator(".program-error")
            assert box.is_visible()
            text = box.inner_text()
            assert "max_response_bytes" in text and re.search(r"about [\d.,]+ (MB|KB|bytes); the limit", text), text   # two_sizes: one unit, KB here
            assert page.locator("#graph-badge").is_visible()   # "last good trace"
            assert node(page, "L").count() == 1 and node(page, "x").count() == 0
            assert page.locator("#player .btn.forward").is_disabled()
            page.screenshot(path=SHOTS / f"size-refused-{size[0]}x{size[1]}-{theme}.png")
            assert errors == []
        finally:
            context.close()
