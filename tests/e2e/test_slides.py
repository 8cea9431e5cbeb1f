"""docs/slides.md's reveal.js deck, as written there, in headless Chromium: the deck keeps the
focus, a clicker's PageDown / PageUp show and hide fragments, and each fragment moves the embed
on its slide to its step by postMessage, forwards and backwards. reveal.js comes from npm (a
dev dependency, as the doc tells lecturers to install it)."""
from __future__ import annotations

import unicodedata

import re

import pytest
from live_server import REPO
from test_embed import deck_server  # noqa: F401  (a fixture)

REVEAL = REPO / "node_modules" / "reveal.js" / "dist"


def deck_from_doc(app_url: str) -> str:
    """The deck's HTML from docs/slides.md, pointed at the test's server."""
    doc = (REPO / "docs" / "slides.md").read_text()
    html = re.search(r"```html\n(<!doctype html>.*?)```", doc, re.S).group(1)
    return html.replace("http://127.0.0.1:8000", app_url)


def test_the_decks_fragments_step_the_embed(chromium, app_url, deck_server):  # noqa: F811
    if not REVEAL.exists():
        pytest.fail("node_modules/reveal.js is missing: run `npm ci`")
    files = {f"/node_modules/reveal.js/dist/{name}": ((REVEAL / name).read_bytes(), kind)
             for name, kind in [("reveal.css", "text/css"), ("reveal.js", "text/javascript"),
                                ("theme/white.css", "text/css")]}
    url = deck_server(deck_from_doc(app_url), files)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        frame = page.frame_locator("iframe.gradwalk")

        def embed_step() -> str | None:
            return frame.locator("#embed").get_attribute("data-step")

        def wait_embed(step: int) -> None:
            frame.locator(f'#embed[data-step="{step}"][data-status="ready"]').wait_for()

        page.keyboard.press("PageDown")  # to the slide with the walk: reveal.js loads its iframe
        wait_embed(0)
        said = {13: "ā += 1 · d̄ = 1 · 1.5729 = 1.5729", 14: "ā = 1.5729 + (-0.7864) = 0.7864"}
        for step in [7, 8, 13, 14, 16]:  # each click shows a fragment, which steps the walk
            page.keyboard.press("PageDown")
            wait_embed(step)
            if step in said:   # the deck's comments name what each fragment shows
                text = frame.locator("#narration").inner_text()
                assert unicodedata.normalize("NFC", said[step]) in unicodedata.normalize("NFC", text)
        assert frame.locator("#embed").get_attribute("data-phase") == "done"
        for step in [14, 13, 8, 7, 0]:  # and back
            page.keyboard.press("PageUp")
            wait_embed(step)
        # Leaving the slide and coming back: forwards it starts again at the iframe's start,
        # backwards (every fragment shown) at the last fragment's step, whether reveal.js kept
        # the iframe or reloaded it.
        for _ in range(5):
            page.keyboard.press("PageDown")
        wait_embed(16)
        page.keyboard.press("PageDown")  # "Your turn"
        page.wait_for_function("() => Reveal.getIndices().h === 2")
        page.keyboard.press("PageUp")
        page.wait_for_function("() => Reveal.getIndices().h === 1")
        wait_embed(16)
        page.keyboard.press("Home")
        page.wait_for_function("() => Reveal.getIndices().h === 0")
        page.keyboard.press("PageDown")
        wait_embed(0)
        page.keyboard.press("PageDown")
        wait_embed(7)
        assert errors == []
    finally:
        context.close()
