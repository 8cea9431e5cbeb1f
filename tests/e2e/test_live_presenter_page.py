"""The lecturer's side of a live room (issue 17 review, findings 2-5): the room survives a
reload of the lecturer's tab (its token in that tab's sessionStorage, never in the URL), a new
example chosen at step 0 reaches the students without a step, "Leave the room" stops sending,
and the Share panel says when its address is this computer only (127.0.0.1), or uses
GRADWALK_PUBLIC_URL for the room's address and QR code."""
from __future__ import annotations

import pathlib
import sys

from page_helpers import choose
from test_live_room_page import SHOTS, _open_room, _presenter_step, lecturer_in_room, student_on_phone

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "server"))
from server_process import served  # noqa: E402


def test_the_presenter_keeps_the_room_across_a_reload(open_explorer, chromium, app_url):
    page, room = lecturer_in_room(open_explorer)
    student = student_on_phone(chromium, app_url, room)
    try:
        _presenter_step(page, 1)
        student.wait_for_selector('#embed[data-live-step="1"][data-step="1"]')
        token = page.evaluate("sessionStorage.getItem(`gradwalk.live.presenter.${sessionStorage.getItem('gradwalk.live.presenter')}`)")
        assert token and token not in page.url   # kept in the tab, never in the URL

        # the address bar has the step once the player rests (permalink.js, 250 ms)
        page.wait_for_selector('#app[data-url-step="1"]', state="attached")
        page.reload()
        page.wait_for_selector('#app[data-status="ready"]')
        assert page.inner_text("#share") == f"Share · live {room}"
        assert page.get_attribute("#live-section", "data-room") == room
        page.click("#share")
        assert page.inner_text("#start-live") == "Start a new room"
        assert room in page.inner_text("#live-code")
        page.keyboard.press("Escape")
        page.wait_for_selector('#player[data-step="1"]')   # the reload reopened at its step
        for step in (2, 3):
            page.click("#player .btn.forward")
            page.wait_for_selector(f'#player[data-step="{step}"]')
        student.wait_for_selector('#embed[data-live-step="3"][data-step="3"]')

        page.click("#share")
        page.click("#leave-live")   # the lecturer closes it: the page is no presenter any more
        page.wait_for_selector("#share:text-is('Share')")
        assert page.locator("#live-qr").is_hidden()
        assert "You closed the room" in page.inner_text("#live-section")
        # the students are told (review of fb96ca3: they went on "Following the lecturer")
        student.wait_for_selector('#embed[data-following="ended"]')
        assert student.inner_text("#live-pill") == "The room has closed"
        assert student.get_attribute("#embed", "data-live-step") == "3"
        page.keyboard.press("Escape")
        page.click("#player .btn.forward")
        page.wait_for_selector('#player[data-step="4"]')
        page.reload()
        page.wait_for_selector('#app[data-status="ready"]')
        assert page.inner_text("#share") == "Share"   # forgotten, also after a reload
    finally:
        student.context.close()


def test_a_new_example_at_step_0_reaches_the_students(open_explorer, chromium, app_url):
    page, room = lecturer_in_room(open_explorer)
    student = student_on_phone(chromium, app_url, room)
    try:
        assert student.locator("g.node").count() != 15
        choose(page, "seed-sigmoid-net")   # two sigmoid neurons, still at step 0
        assert page.get_attribute("#player", "data-step") == "0"
        # the student's page reloads into the new walk (live.js decideLive)
        student.wait_for_function("() => document.querySelectorAll('g.node').length === 15",
                                  timeout=20_000)
        student.wait_for_selector('#embed[data-status="ready"][data-following="true"][data-step="0"]')
    finally:
        student.context.close()


def test_the_panel_says_a_loopback_address_reaches_no_phone(open_explorer):
    page = open_explorer(1280, 800).page
    assert "127.0.0.1" in page.url
    page.click("#share")
    warning = page.locator("#live-loopback")
    assert warning.is_visible()
    text = warning.inner_text()
    assert "Phones cannot open this address" in text
    assert "--host 0.0.0.0" in text and "GRADWALK_PUBLIC_URL" in text
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=SHOTS / "share-loopback-1280.png")


def test_the_room_address_and_qr_use_the_public_url(chromium, tmp_path):
    public = "http://192.168.1.20:8000/gw"
    with served(tmp_path, data_dir=tmp_path, public_url=public) as server:
        context = chromium.new_context(viewport={"width": 1024, "height": 768})
        try:
            page = context.new_page()
            page.set_default_timeout(20_000)
            page.goto(server.url)
            page.wait_for_selector('#app[data-status="ready"]')
            assert page.get_attribute("#app", "data-public-url") == public
            room = _open_room(page)
            assert page.locator("#live-loopback").is_hidden()   # the public address reaches phones
            address = f"{public}/live/{room}"
            assert page.get_attribute("#live-section", "data-address") == address
            assert page.get_attribute("#live-code a", "href") == address
            assert page.get_attribute("#live-qr", "aria-label") == f"QR code of {address}"
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=SHOTS / "share-public-url-1024.png")
            # the panel's link, short link and embed code too: they gave 127.0.0.1 addresses
            page.click("#copy-link")
            assert page.input_value("#share-link").startswith(f"{public}/#"), page.input_value("#share-link")
            assert f'src="{public}/embed' in page.input_value("#share-embed")
            page.click("#copy-short-link")
            page.wait_for_selector('#share-panel[data-short-link*="/s/"]', state="attached")
            assert page.get_attribute("#share-panel", "data-short-link").startswith(f"{public}/s/")
        finally:
            context.close()
