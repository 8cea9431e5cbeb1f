"""A student on a 390x844 phone with touch steps on their own by every way the page offers
(issue 17 review, finding 1): a swipe on the graph, the player's buttons and a key each detach
the student, so the lecturer's next step leaves them where they are. The swipe used to step
without detaching (embed.js wired it to the bare playback actions)."""
from __future__ import annotations

import pytest

from test_live_room_page import _presenter_step, lecturer_in_room, student_on_phone
from test_phone_touch_page import centre_of, swipe


@pytest.fixture
def room_and_student(open_explorer, chromium, app_url):
    """(lecturer page, student page): a room opened at the lecturer's tanh walk, a student
    following it on a 390x844 touch phone."""
    lecturer, room = lecturer_in_room(open_explorer)
    student = student_on_phone(chromium, app_url, room)
    student.wait_for_selector('#graph[data-camera="still"]')
    student.cdp = student.context.new_cdp_session(student)
    yield lecturer, student
    student.context.close()


def test_a_swipe_detaches_the_student(room_and_student):
    lecturer, student = room_and_student
    cx, cy = centre_of(student.locator("#embed svg").first.bounding_box())
    for step in (1, 2, 3):
        swipe(student, (cx + 80, cy), (cx - 80, cy))   # right to left: next
        student.wait_for_selector(f'#embed[data-step="{step}"]')
        student.wait_for_selector('#graph[data-camera="still"]')
    assert student.get_attribute("#embed", "data-following") == "false"
    assert "Rejoin" in student.inner_text("#live-pill")
    for sent in (1, 2, 3, 4, 5, 6):   # the lecturer steps past the student
        _presenter_step(lecturer, sent)
    student.wait_for_selector('#embed[data-live-step="6"]', state="attached")
    assert student.get_attribute("#embed", "data-step") == "3"   # stays where they swiped
    assert student.get_attribute("#embed", "data-following") == "false"


@pytest.mark.parametrize("how", ["button", "key"])
def test_the_buttons_and_keys_detach_the_student(room_and_student, how):
    lecturer, student = room_and_student
    if how == "button":
        student.tap("#embed .player .btn.forward")
    else:
        student.keyboard.press("ArrowRight")
    student.wait_for_selector('#embed[data-following="false"][data-step="1"]')
    _presenter_step(lecturer, 1)
    _presenter_step(lecturer, 2)
    student.wait_for_selector('#embed[data-live-step="2"]', state="attached")
    assert student.get_attribute("#embed", "data-step") == "1"
