"""A live room never opens at a program that does not parse (polish17 item 1): the lecturer
who traced `L = (x +` and pressed "Start a live room" got a room whose 300 phones all opened
at the error. The Share panel says why, where (line and column, as the editor does), and
nothing the lecturer typed is lost; the same program, fixed, opens a room."""
from __future__ import annotations

from page_helpers import get_program, own_program, trace
from test_live_room_page import SHOTS

BROKEN = "x = 2.0\nL = (x +\n"
FIXED = "x = 2.0\nL = (x + 1) * x\n"


def test_a_program_that_does_not_parse_opens_no_room_and_keeps_the_text(open_explorer):
    SHOTS.mkdir(exist_ok=True)
    lecturer = open_explorer(1280, 800)
    page = lecturer.page
    own_program(page, BROKEN, status="error")
    page.click("#share")
    page.click("#start-live")
    page.wait_for_function("() => document.querySelector('#live-status').textContent.startsWith('No live room')")
    said = page.inner_text("#live-status")
    assert said.startswith("No live room: Line 2, column "), said
    assert "syntax error" in said and "never closed" in said, said
    assert page.get_attribute("#live-section", "data-room") is None
    assert page.inner_text("#share") == "Share"
    assert page.locator("#live-qr").is_hidden()
    page.screenshot(path=SHOTS / "share-live-refused-1280.png")
    assert get_program(page) == BROKEN   # nothing typed is lost
    page.keyboard.press("Escape")
    trace(page, FIXED)
    page.click("#share")
    page.click("#start-live")
    page.wait_for_selector("#live-section[data-room]")
    assert lecturer.unexpected_errors() == []
