"""A live room's student page never reloads in a loop (review livefix14 §1). It compared the
event's raw state with its own checked one (state.js checkState drops a leading BOM, clamps the
iteration chosen), so they never matched and a phone reloaded several times a second (42 loads
in 5 s). Now: such a step is followed without a reload; a state the page refuses (a newer
version) says so on the pill and waits; another walk reloads once."""
from __future__ import annotations

import json
import urllib.request

import pytest
from page_helpers import new_page

PROGRAM = "x = 2.0\nL = x * x"


def _post(url: str, body: dict, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def _loads_after_a_step(chromium, app_url: str, state: dict, step: dict) -> tuple[int, object]:
    """Open a room at `state`, a phone on it, post `step`: (page loads in 3 s after, page)."""
    room = _post(f"{app_url}/api/live", state)
    context = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                   is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    loads = []
    page.on("load", lambda: loads.append(1))
    page.goto(f"{app_url}/live/{room['room']}")
    page.wait_for_selector('#embed[data-status="ready"][data-following="true"]')
    before = len(loads)
    _post(f"{app_url}/api/live/{room['room']}/state", step, room["presenter_token"])
    page.wait_for_timeout(3000)
    return len(loads) - before, page


@pytest.mark.parametrize("state", [
    {"v": 1, "program": "\ufeff" + PROGRAM},   # a program pasted with its byte-order mark
    {"v": 1, "program": PROGRAM, "train_steps": 101, "train_iteration": 299,
     "train_chosen": True},   # the slider at 300, then Iterations set to 101
], ids=["bom", "iteration-clamped"])
def test_a_step_the_page_checks_into_its_walk_is_followed_without_a_reload(chromium, app_url,
                                                                          state):
    loads, page = _loads_after_a_step(chromium, app_url, state, {**state, "step": 1})
    try:
        assert loads == 0
        assert page.get_attribute("#embed", "data-live-step") == "1"
        assert page.get_attribute("#embed", "data-step") == "1"
    finally:
        page.context.close()


def test_a_state_the_page_refuses_says_so_and_waits(chromium, app_url):
    state = {"v": 1, "program": PROGRAM}
    loads, page = _loads_after_a_step(chromium, app_url, state, {"v": 2, "program": PROGRAM,
                                                                 "step": 2})
    try:
        assert loads == 0
        # said as a room (a reload fetches the server's page as it is now), not as a link
        assert page.inner_text("#live-pill") == ("The lecturer's page is a newer gradwalk than "
                                                 "this one: reload this page to follow")
        assert page.get_attribute("#embed", "data-live-refused") == page.inner_text("#live-pill")
        assert page.get_attribute("#embed", "data-step") == "0"
    finally:
        page.context.close()


def test_another_walk_reloads_once(chromium, app_url):
    loads, page = _loads_after_a_step(chromium, app_url, {"v": 1, "program": PROGRAM},
                                      {"v": 1, "program": "y = 3.0\nM = y + y", "step": 1})
    try:
        assert loads == 1
        page.wait_for_selector('#embed[data-status="ready"][data-live-step="1"][data-step="1"]')
    finally:
        page.context.close()


def test_a_room_opened_at_a_newer_state_says_so_as_the_room_does(chromium, app_url):
    """Review of s15 §2: a room whose state came from a newer lecturer's page (v 2: the server
    keeps it, server/pagestate.py) opened with the link's wording ("This link was made by a
    newer version ...": a student opened no link) under a pill saying "Following the
    lecturer". Now the room's wording, the pill's while following, and a pill that says it
    does not follow."""
    room = _post(f"{app_url}/api/live", {"v": 2, "program": PROGRAM, "step": 2})
    said = "The lecturer's page is a newer gradwalk than this one: reload this page to follow"
    for width, height in ((1280, 800), (1024, 768)):
        context = chromium.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.goto(f"{app_url}/live/{room['room']}")
            page.wait_for_selector('#embed[data-status="error"][data-following="false"]')
            assert page.inner_text(".graph-message") == said
            assert page.inner_text("#live-pill") == "Not following the lecturer"
            assert page.get_attribute("#live-pill", "title") == said
            assert page.is_disabled("#live-pill")
            assert page.get_attribute("#embed", "data-live-refused") == said
            page.screenshot(path=f"/tmp/fixes16_live_newer_{width}.png")
        finally:
            context.close()


@pytest.mark.parametrize("typed", ["ABC", "AB-CDE", "O0O0O0", "ZZZZZZ", "%3Cimg%20src=x%3E"])
def test_a_mistyped_room_code_is_refused_as_a_room(chromium, app_url, typed):
    """Review of fb96ca3: a code that cannot be one (too short, a dash left a 5-letter code,
    letters the codes never use, markup) ran the page as a plain embed: "This short link could
    not be opened" under a "Following the lecturer" pill, with no hint. Now every unknown code
    reads as a room's, with what to do, and a pill that does not follow."""
    contexts = []
    try:
        page = new_page(chromium, contexts, (390, 844), touch=True)
        page.goto(f"{app_url}/live/{typed}")
        page.wait_for_selector('#embed[data-status="error"][data-following="false"]')
        said = page.inner_text(".graph-message")
        assert said.startswith("This live room could not be opened: no live room "), said
        assert said.endswith("(check the code on the lecturer's screen; a room closes after a "
                             "while unused)."), said
        assert page.inner_text("#live-pill") == "Not following the lecturer"
        assert page.is_disabled("#live-pill")
        assert not page.locator("img").count()   # the typed markup is text, never an element
        assert page.errors == []
    finally:
        for context in contexts:
            context.close()
