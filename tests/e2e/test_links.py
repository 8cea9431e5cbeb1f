"""Permalinks in a real browser: the URL fragment holds the walk (program, step, options), a
link opens in a fresh browser profile at the same step with the same numbers, a link wins over
the draft saved on the machine without losing it, older and broken fragments open with a
message. Waits on data-* attributes, never on sleeps."""
from __future__ import annotations

import base64
import json
import re
import urllib.parse
import zlib

import pytest
from page_helpers import YOUR_PROGRAM, choose, get_program, own_program, step_forward, wait_step

MINE = "w = 3.0\nx = 2.0\nL = w * x + w\n"  # the draft saved on this machine
LINKED = "p = 0.5\nq = -2.0\nr = tanh(p * q) + p\nL = r * r\n"  # the program of a link
SAVED_KEY = "gradwalk.editor.v1"


def fragment(state: dict) -> str:
    """`s=` + base64url(deflate-raw(JSON)), made here with zlib: the page's format, written
    by a second implementation."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packer.compress(json.dumps(state).encode()) + packer.flush()
    return "s=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unpack(url: str) -> dict:
    """The state object in a link's `#s=` fragment."""
    packed = urllib.parse.parse_qs(urllib.parse.urlsplit(url).fragment)["s"][0]
    return json.loads(zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)), -15))


def numbers(page) -> dict[str, tuple[str | None, str | None]]:
    """name -> (data-value, data-adjoint) for every node drawn: the numbers on screen."""
    return dict(page.locator("g.node").evaluate_all(
        "els => els.map(e => [e.dataset.name, [e.dataset.value ?? null, e.dataset.adjoint ?? null]])"))


def open_fresh(chromium, url: str, width: int = 1280, height: int = 800):
    """`url` in a new browser context (an empty profile: no storage), once it has answered."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("() => ['ready', 'error'].includes(document.querySelector('#app')?.dataset.status)")
    return context, page, errors


def save_draft(page, text: str) -> None:
    """Write `text` as "✎ Your program" and wait until the page has saved it."""
    own_program(page, text)
    page.wait_for_function("([k, t]) => (JSON.parse(localStorage.getItem(k) || '{}').draft) === t",
                           arg=[SAVED_KEY, text])


def test_a_typed_program_stepped_to_k_reopens_from_its_url_at_k(explorer, chromium):
    page = explorer.page
    own_program(page, LINKED)
    step_forward(page, 9)
    page.wait_for_selector('#app[data-url-step="9"]')
    state = unpack(page.url)
    assert state == {"v": 1, "program": LINKED, "step": 9}
    assert numbers(page)["p"][0] == "0.5"
    # Step into the backward pass: the adjoints are part of what must come back.
    page.keyboard.press("End")
    end = int(page.locator("#player").get_attribute("data-total"))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_step(page, end - 2)
    page.wait_for_selector(f'#app[data-url-step="{end - 2}"]')
    assert "#s=" in page.url and page.url.count("#") == 1
    history_length = page.evaluate("history.length")
    expected = numbers(page)
    assert sum(adj is not None for _, adj in expected.values()) >= 3

    context, fresh, errors = open_fresh(chromium, page.url)
    try:
        wait_step(fresh, end - 2)
        assert fresh.locator("#app").get_attribute("data-status") == "ready"
        assert get_program(fresh) == LINKED
        assert numbers(fresh) == expected  # the same numbers, to the last digit
        assert fresh.locator("#narration").inner_text() == page.locator("#narration").inner_text()
        assert errors == []
    finally:
        context.close()
    # Stepping replaced the URL; it added no history entries.
    assert history_length == page.evaluate("history.length")
    assert explorer.unexpected_errors() == []


def test_copy_link_gives_the_url_of_the_walk_on_screen(explorer, chromium):
    page = explorer.page
    step_forward(page, 4)
    page.click("#share")
    page.click("#copy-link")
    page.wait_for_function("() => /copied|selected/.test(document.querySelector('#share-status').textContent)")
    link = page.locator("#share-link").input_value()
    assert link.startswith(page.evaluate("location.origin") + "/#s=")
    assert unpack(link) == {"v": 1, "program": get_program(page), "preset": "seed-tanh-fanout", "step": 4}
    context, fresh, _ = open_fresh(chromium, link)
    try:
        wait_step(fresh, 4)
        assert fresh.locator("#preset").input_value() == "seed-tanh-fanout"  # an example's own text
        assert numbers(fresh) == numbers(page)
    finally:
        context.close()


def test_a_link_wins_over_the_saved_draft_and_the_draft_stays_in_the_menu(explorer, app_url):
    page = explorer.page
    save_draft(page, MINE)
    page.goto(f"{app_url}/#{fragment({'v': 1, 'program': LINKED, 'step': 5, 'speed': 8})}")
    page.wait_for_selector('#app[data-status="ready"]')
    wait_step(page, 5)
    assert get_program(page) == LINKED
    assert page.locator("#preset").input_value() == "(link)"
    assert page.locator("#preset option:checked").inner_text() == "↪ Program from the link"
    assert page.locator(".player select.speed").input_value() == "8"
    # The draft is where it was, and coming back to the link's entry shows the link's text.
    choose(page, label=YOUR_PROGRAM)
    assert get_program(page) == MINE
    choose(page, label="↪ Program from the link")
    assert get_program(page) == LINKED
    # The draft is still saved, too: a plain visit opens it.
    page.goto(app_url)
    page.wait_for_selector('#app[data-status="ready"]')
    assert get_program(page) == MINE
    assert explorer.unexpected_errors() == []


def test_an_older_uncompressed_fragment_still_opens(explorer, app_url):
    page = explorer.page
    old = urllib.parse.urlencode({"program": LINKED, "step": 3})  # state.js encodeState's form
    page.goto(f"{app_url}/#{old}")
    page.wait_for_selector('#app[data-status="ready"]')
    wait_step(page, 3)
    assert get_program(page) == LINKED
    assert page.locator("#link-message").is_hidden()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#app[data-url-step="4"]')
    assert unpack(page.url) == {"v": 1, "program": LINKED, "step": 4}  # rewritten in today's form


@pytest.mark.parametrize("bad, says", [
    ("s=q1YqU7Iy1FEqKMpPL0rMVbJSS", "damaged"),  # cut short
    ("s=%%%not-base64", "damaged"),
    ("section-2", "does not hold a gradwalk state"),
    (fragment({"v": 7, "program": LINKED}), "newer version of gradwalk (state version 7)"),
    (fragment({"program": LINKED}), "does not hold a gradwalk state"),
])
def test_a_bad_fragment_says_so_and_keeps_the_draft(explorer, app_url, bad, says):
    page = explorer.page
    save_draft(page, MINE)
    page.goto(f"{app_url}/#{bad}")
    page.wait_for_selector('#app[data-status="ready"]')
    message = page.locator("#link-message")
    assert message.is_visible()
    assert says in message.inner_text()
    assert "kept" in message.inner_text()
    assert get_program(page) == MINE  # what was typed is on screen, traced
    assert page.locator("#preset").input_value() == ""
    page.click("#link-message button")
    assert message.is_hidden()
    assert explorer.unexpected_errors() == []


def test_an_unknown_short_id_opens_the_explorer_with_the_servers_message(explorer, app_url):
    page = explorer.page
    save_draft(page, MINE)
    response = page.goto(f"{app_url}/s/NoSuchLinkHere123")
    assert response.status == 404
    page.wait_for_selector('#app[data-status="ready"]')
    text = page.locator("#link-message").inner_text()
    assert "This short link could not be opened" in text and "NoSuchLinkHere123" in text
    assert get_program(page) == MINE


def test_copy_short_link_opens_the_same_walk_and_falls_back_when_the_server_cannot(explorer, chromium):
    page = explorer.page
    own_program(page, LINKED)
    step_forward(page, 6)
    page.click("#share")
    assert page.locator("#copy-short-link").is_visible()
    page.click("#copy-short-link")
    page.wait_for_function("() => document.querySelector('#share-panel').dataset.shortLink")
    short = page.locator("#share-panel").get_attribute("data-short-link")
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{16}", short), short
    assert page.locator("#share-link").input_value() == short
    context, fresh, _ = open_fresh(chromium, short)
    try:
        wait_step(fresh, 6)
        assert get_program(fresh) == LINKED
        assert numbers(fresh) == numbers(page)
    finally:
        context.close()

    # The database is down: the full link instead, and a short message why.
    page.route("**/api/links", lambda route: route.fulfill(
        status=503, content_type="application/json",
        body='{"error": {"kind": "unavailable", "message": "the short-link database is unavailable"}}'))
    page.click("#copy-short-link")
    page.wait_for_selector('#share-panel[data-short-link="failed"]')
    assert "No short link (the short-link database is unavailable)" in page.locator("#share-status").inner_text()
    assert unpack(page.locator("#share-link").input_value())["step"] == 6


def test_copy_embed_code_gives_an_iframe_with_a_title_and_the_current_options(explorer, app_url):
    page = explorer.page
    page.goto(f"{app_url}/#{fragment({'v': 1, 'program': LINKED, 'step': 7, 'theme': 'projector'})}")
    wait_step(page, 7)
    assert page.evaluate("document.documentElement.dataset.theme") == "projector"
    # A theme picked in the page goes into the link and the embed code, too.
    if not page.locator("#theme").is_visible():  # in the "Aa" menu
        page.locator("details:has(#theme) > summary").click()
    page.select_option("#theme", "dark")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    page.click("#share")
    page.click("#copy-embed")
    code = page.locator("#share-embed").input_value()
    match = re.fullmatch(r'<iframe src="([^"]+)" title="([^"]+)" width="(\d+)" height="(\d+)"[^>]*></iframe>', code)
    assert match, code
    src, title, width, height = match.groups()
    assert title == "gradwalk: backpropagation of L, step by step"
    assert (int(width), int(height)) == (1000, 600)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(src.replace("&amp;", "&")).query)
    assert query == {"step": ["7"], "theme": ["dark"]}
    assert unpack(page.url)["theme"] == "dark"
    assert unpack(src.replace("&amp;", "&"))["program"] == get_program(page)


def test_without_short_links_the_button_is_hidden_and_copy_link_still_works(chromium, monkeypatch):
    from live_server import running_server

    monkeypatch.setenv("GRADWALK_LINKS_ENABLED", "false")  # a stateless deployment
    with running_server() as url:
        context, page, errors = open_fresh(chromium, url)
        try:
            assert page.locator("#app").get_attribute("data-links-enabled") == "false"
            page.click("#share")
            assert page.locator("#copy-link").is_visible()
            assert page.locator("#copy-short-link").is_hidden()
            page.click("#copy-link")
            assert unpack(page.locator("#share-link").input_value())["preset"] == "seed-tanh-fanout"
            assert errors == []
        finally:
            context.close()


def test_a_link_pasted_into_the_address_bar_of_an_open_tab_opens(explorer):
    page = explorer.page
    page.evaluate("h => { location.hash = h; }", fragment({"v": 1, "program": LINKED, "step": 4}))
    wait_step(page, 4)
    page.wait_for_selector('#app[data-status="ready"]')
    assert get_program(page) == LINKED
    page.evaluate("() => { location.hash = 's=broken'; }")
    page.wait_for_selector('#app[data-link-error="true"]')
    assert "damaged" in page.locator("#link-message").inner_text()
    assert get_program(page) == LINKED  # what was on screen stays
    assert explorer.unexpected_errors() == []
