"""A live room in two browser contexts (issue 17, section 1): the lecturer opens a room from the
Share panel (its code and a QR code shown), steps the walk; a student on a 390x844 phone opens
/live/{room} and follows; the student steps on their own and is detached, and one tap on the
pill rejoins at the lecturer's step. Screenshots in /tmp/gradwalk-live-shots for looking at."""
from __future__ import annotations

import pathlib

SHOTS = pathlib.Path("/tmp/gradwalk-live-shots")


def _open_room(page) -> str:
    page.click("#share")
    page.click("#start-live")
    page.wait_for_selector("#live-section[data-room]")
    return page.get_attribute("#live-section", "data-room")


def lecturer_in_room(open_explorer):
    """(the lecturer's page at 1280x800, the code of the room it opened); the panel closed."""
    page = open_explorer(1280, 800).page
    room = _open_room(page)
    page.keyboard.press("Escape")
    return page, room


def student_on_phone(chromium, app_url: str, room: str):
    """A student's page at /live/{room} on a 390x844 touch phone, following; its context is
    the caller's to close (page.context.close())."""
    context = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                   is_mobile=True, device_scale_factor=2)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{app_url}/live/{room}")
    page.wait_for_selector('#embed[data-status="ready"][data-following="true"]')
    return page


def _presenter_step(page, sent: int) -> None:
    page.click("#player .btn.forward")
    page.wait_for_selector(f'#live-section[data-sent="{sent}"]', state="attached")


def test_a_student_follows_detaches_and_rejoins(open_explorer, chromium, app_url):
    SHOTS.mkdir(exist_ok=True)
    lecturer = open_explorer(1280, 800)
    page = lecturer.page
    room = _open_room(page)
    assert len(room) == 6
    assert page.locator("#live-qr svg").count() == 1
    assert room in page.inner_text("#live-code")
    page.screenshot(path=SHOTS / "share-live-1280.png")
    page.keyboard.press("Escape")   # the panel closes; the room stays, the button says so
    assert room in page.inner_text("#share")

    phone = chromium.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                 is_mobile=True, device_scale_factor=2)
    try:
        student = phone.new_page()
        student.set_default_timeout(15_000)
        errors = []
        student.on("pageerror", lambda e: errors.append(str(e)))
        writes = []   # a student's page never writes (POST /api/trace only computes the walk)
        student.on("request", lambda r: r.method != "GET" and "/api/trace" not in r.url
                   and writes.append(r.url))
        student.goto(f"{app_url}/live/{room}")
        student.wait_for_selector('#embed[data-status="ready"][data-step="0"][data-following="true"]')
        assert "Following the lecturer" in student.inner_text("#live-pill")

        for k in (1, 2, 3):
            _presenter_step(page, k)
        student.wait_for_selector('#embed[data-step="3"][data-live-step="3"]')
        student.screenshot(path=SHOTS / "live-phone-390.png")

        student.tap("#embed .player .btn.forward")   # the student steps on their own
        student.wait_for_selector('#embed[data-following="false"][data-step="4"]')
        _presenter_step(page, 4)
        _presenter_step(page, 5)
        student.wait_for_selector('#embed[data-live-step="5"]')
        assert student.get_attribute("#embed", "data-step") == "4"   # detached: stays
        assert "Rejoin" in student.inner_text("#live-pill")
        student.screenshot(path=SHOTS / "live-phone-detached-390.png")
        pill = student.locator("#live-pill").bounding_box()
        assert pill["height"] >= 44   # a thumb's target

        student.tap("#live-pill")   # one tap: back at the lecturer's step
        student.wait_for_selector('#embed[data-following="true"][data-step="5"]')
        width = student.evaluate("document.documentElement.scrollWidth")
        assert width <= 390   # no horizontal overflow on the phone
        assert errors == [] and writes == []
    finally:
        phone.close()
    assert lecturer.unexpected_errors() == []


def test_the_share_panel_live_room_in_the_projector_theme(open_explorer, chromium, app_url):
    SHOTS.mkdir(exist_ok=True)
    lecturer = open_explorer(1024, 768)
    page = lecturer.page
    page.locator("#view-menu summary").click()
    page.select_option("#theme", "projector")
    page.locator("#view-menu summary").click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'projector'")
    room = _open_room(page)
    page.screenshot(path=SHOTS / "share-live-projector-1024.png")
    box = page.locator("#live-qr").bounding_box()
    assert box["width"] >= 150   # scannable from a few rows back
    # the students' look is their own: the room carries the walk, not the projector theme
    phone = chromium.new_context(viewport={"width": 390, "height": 844})
    try:
        student = phone.new_page()
        student.goto(f"{app_url}/live/{room}")
        student.wait_for_selector('#embed[data-status="ready"]')
        assert student.evaluate("document.documentElement.dataset.theme") != "projector"
    finally:
        phone.close()


def test_a_student_refused_as_busy_connects_when_a_place_frees(chromium, tmp_path):
    """max_live_followers=1: the page's stream is refused (503), EventSource gives up on an
    error answer, and the page tries again by itself once the one place is free."""
    import json
    import socket
    import sys
    import urllib.request

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "server"))
    from server_process import served

    with served(tmp_path, data_dir=tmp_path, max_live_followers=1) as server:
        request = urllib.request.Request(f"{server.url}/api/live", data=json.dumps(
            {"v": 1, "program": "x = 2.0\nL = x * x"}).encode(),
            headers={"Content-Type": "application/json"})
        room = json.loads(urllib.request.urlopen(request).read())["room"]
        holder = socket.create_connection(("127.0.0.1", server.port))   # the one place
        holder.sendall(f"GET /api/live/{room}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert holder.recv(12) == b"HTTP/1.1 200"
        context = chromium.new_context(viewport={"width": 390, "height": 844})
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.goto(f"{server.url}/live/{room}")
            page.wait_for_selector('#embed[data-status="ready"][data-connected="false"]',
                                   state="attached")
            holder.close()   # the place frees
            page.wait_for_selector('#embed[data-connected="true"][data-live-seq="0"]',
                                   state="attached")
        finally:
            context.close()
            holder.close()
