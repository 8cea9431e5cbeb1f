"""Slides that print (issue 17, section 3): docs/slides.md's deck opened with reveal.js'
?print-pdf loads its walk at once with print=1, and the embed shows that step as a static SVG
picture (no live graph, no player); printed to PDF by headless Chromium, the page holds it.
And an embed driven by a deck as a live room's presenter (docs/slides.md, {type:
"gradwalk:live"}) posts its steps to the room."""
from __future__ import annotations

import json
import pathlib
import time
import urllib.parse
import urllib.request

from test_embed import deck_server  # noqa: F401  (a fixture)
from test_links import fragment
from test_slides import REVEAL, deck_from_doc

SHOTS = pathlib.Path("/tmp/gradwalk-live-shots")
TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"


def _page(url: str) -> str:
    with urllib.request.urlopen(url) as r:
        return r.read().decode()


def _reveal_files() -> dict:
    return {f"/node_modules/reveal.js/dist/{name}": ((REVEAL / name).read_bytes(), kind)
            for name, kind in [("reveal.css", "text/css"), ("reveal.js", "text/javascript"),
                               ("theme/white.css", "text/css")]}


def test_the_printed_deck_shows_the_walk_as_a_picture(chromium, app_url, deck_server):  # noqa: F811
    SHOTS.mkdir(exist_ok=True)
    url = deck_server(deck_from_doc(app_url), _reveal_files())
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(url + "?print-pdf")
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        frame = page.frame_locator("iframe.gradwalk")
        # the slide's last fragment is step 16: the picture of that step, no player
        embed = frame.locator('#embed[data-status="ready"][data-print="true"][data-picture="16"]')
        embed.wait_for(state="attached")
        picture = frame.locator("img.print-step")
        assert picture.get_attribute("src").startswith("data:image/svg+xml")
        assert "step 16" in urllib.parse.unquote(picture.get_attribute("src"))
        assert frame.locator("#graph").is_hidden() and frame.locator(".player").is_hidden()
        assert picture.evaluate("img => img.complete && img.naturalWidth > 100")
        page.screenshot(path=SHOTS / "print-deck-1280.png")
        page.emulate_media(media="print")
        pdf = page.pdf(print_background=True)
        assert pdf.startswith(b"%PDF") and len(pdf) > 20_000   # the picture is in it
        (SHOTS / "deck.pdf").write_bytes(pdf)
    finally:
        context.close()


def test_an_embed_with_print_1_draws_its_step_as_an_svg_picture(chromium, app_url):
    context = chromium.new_context(viewport={"width": 1000, "height": 600})
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(f"{app_url}/embed?print=1&step=5#{fragment({'v': 1, 'program': TANH})}")
        page.wait_for_selector('#embed[data-status="ready"][data-picture="5"]', state="attached")
        assert page.locator(".player").is_hidden()
        src = urllib.parse.unquote(page.get_attribute("img.print-step", "src"))
        assert "<svg" in src and "step 5 / 16" in src
    finally:
        context.close()


def test_a_deck_makes_its_embed_a_live_rooms_presenter(chromium, app_url, deck_server):  # noqa: F811
    state = {"v": 1, "program": TANH}
    request = urllib.request.Request(f"{app_url}/api/live", data=json.dumps(state).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as r:
        room = json.loads(r.read())
    deck = (f'<iframe id="walk" src="{app_url}/embed#{fragment(state)}"></iframe><script>'
            'addEventListener("message", (e) => { if (e.data.type === "gradwalk:ready") '
            f'e.source.postMessage({{type: "gradwalk:live", room: "{room["room"]}", '
            f'token: "{room["presenter_token"]}"}}, "*"); }});</script>')
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(deck_server(deck))
        frame = page.frame_locator("#walk")
        frame.locator('#embed[data-status="ready"]').wait_for(state="attached")
        page.evaluate('document.getElementById("walk").contentWindow.postMessage('
                      '{type: "gradwalk:goto", step: 6}, "*")')
        frame.locator('#embed[data-step="6"]').wait_for(state="attached")
        deadline = time.monotonic() + 15
        while '"step": 6' not in _page(f"{app_url}/live/{room['room']}"):
            assert time.monotonic() < deadline, "the room never got step 6"
            time.sleep(0.1)   # polling the server's state of the room
    finally:
        context.close()
