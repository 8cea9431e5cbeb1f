"""Screenshots of the explorer for a person to look at (not a test).

    python tests/e2e/shoot.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-shots]
                              [--size 1920x1080] [--theme auto|light|dark|projector]
    python tests/e2e/shoot.py --readme      # docs/screenshot.png: the README's picture

Starts the real server (server.main:create_app) on a free port unless --url is given,
then saves PNGs of a few moments of a few presets at projector size (1920x1080; try
--size 1024x768 too), and of the page's edge cases: your own program in the menu, an error
after an edit, an error without a line, a medium graph to pan, a graph too big to draw.
"""
from __future__ import annotations

import argparse
import contextlib
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import EDITOR, chain, paste  # noqa: E402

# (preset, steps: a number, or "end"), one screenshot each.
MOMENTS = [
    ("seed-tanh-fanout", 0),
    ("seed-tanh-fanout", 5),
    ("seed-tanh-fanout", 13),
    ("seed-tanh-fanout", 14),
    ("seed-tanh-fanout", "end"),
    ("seed-sigmoid-net", 18),
    ("seed-sigmoid-net", 20),  # the "+=" callout next to a crowded column
    ("seed-matmul-2x2", "end"),
    ("seed-bias-broadcast", 12),
    ("seed-bias-broadcast", "end"),
]


@contextlib.contextmanager
def browser_for_shots():
    """Debian's chromium for a screenshot script (each page logs its errors), closed after."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def themed_pages(browser, url: str, sizes, themes=("light", "projector")):
    """For each size and theme: (the explorer in a fresh context, ready, the theme picked,
    "WxH-theme"); the context is closed when the next one is made."""
    for width, height in sizes:
        for theme in themes:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.on("pageerror", lambda e: print("pageerror:", e))
            page.goto(url)
            page.wait_for_selector('#app[data-status="ready"]')
            pick_theme(page, theme)
            yield page, f"{width}x{height}-{theme}"
            context.close()


def trace_text(page, text: str) -> None:
    paste(page, text)
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => !['loading', 'streaming'].includes(document.querySelector('#app').dataset.status)")
    page.keyboard.press("Escape")


def save(page, out: pathlib.Path, name: str) -> None:
    page.wait_for_timeout(400)  # let the camera and the pulses settle
    page.screenshot(path=str(out / f"{name}.png"))
    print(out / f"{name}.png")


def pick_theme(page, theme: str) -> None:
    """Pick `theme` in the page's "Aa" menu, as a lecturer does (auto: leave it)."""
    if theme == "auto":
        return
    page.click("#view-menu summary")
    page.select_option("#theme", theme)
    page.click("#view-menu summary")


def readme(url: str, path: pathlib.Path) -> None:
    """The README's picture: the first example at 1920x1080, at its step 14 (ā += b · ē)."""
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080}, color_scheme="light")
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"]')
        page.locator("#narration").click()  # the keys to the player
        for _ in range(14):
            page.keyboard.press("ArrowRight")
        page.wait_for_selector('#player[data-step="14"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        page.wait_for_timeout(900)  # let the pulse land for the picture
        page.screenshot(path=str(path))
        print(path)
        browser.close()


def shoot(url: str, out: pathlib.Path, width: int, height: int, theme: str = "auto") -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("console", lambda m: m.type == "error" and print("console:", m.text))
        page.on("pageerror", lambda e: print("pageerror:", e))
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"]')
        pick_theme(page, theme)
        for preset, steps in MOMENTS:
            page.select_option("#preset", preset)
            page.wait_for_selector(f'#app[data-status="ready"]')
            page.wait_for_function(
                "p => document.querySelector('#preset').value === p"
                " && document.querySelector('#player').dataset.step === '0'", arg=preset)
            page.locator("#graph").click(position={"x": 2, "y": 2})  # focus off the editor
            if steps == "end":
                page.keyboard.press("End")
            else:
                for _ in range(steps):
                    page.keyboard.press("ArrowRight")
            page.wait_for_timeout(900)  # let the pulse finish for the picture
            path = out / f"{preset}-{steps}.png"
            page.screenshot(path=str(path))
            print(path)
        # The graph alone, as a lecturer shows it once the program has been read.
        page.click("#toggle-program")
        page.select_option("#preset", "seed-sigmoid-net")
        page.wait_for_function("sel => document.querySelector('#app').dataset.status === 'ready'"
                               " && document.querySelector(sel).gradwalkEditor.getText().startsWith('x = 2.0')",
                               arg=EDITOR)
        page.keyboard.press("End")
        page.locator('g.node[data-name="h1"]').hover()
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "program-hidden.png"))
        print(out / "program-hidden.png")
        page.click("#toggle-program")
        page.locator('g.node[data-name="w2 * h1"]').hover()
        page.screenshot(path=str(out / "hover.png"))
        print(out / "hover.png")
        # An error, with the text kept.
        paste(page, "x = 1.0\ny = x +* 2\n")
        page.locator("#program").press("Control+Enter")
        page.wait_for_selector('#app[data-status="error"]')
        page.screenshot(path=str(out / "error.png"))
        print(out / "error.png")
        # ... and after an edit: the error is marked as before it, the graph as the last good one.
        page.keyboard.press("End")
        page.keyboard.type("  # fixing")
        save(page, out, "error-after-edit")
        # Your own program, kept in the menu while an example is shown.
        trace_text(page, "w = 3.0\nx = 2.0\nL = w * x + w\n")
        page.keyboard.press("ArrowRight")
        save(page, out, "your-program")
        # An error that is not in the text (line and col null).
        page.route("**/api/trace/stream", lambda route: route.fulfill(
            status=422, content_type="application/json",
            body='{"error": {"kind": "unknown_output", "message": "no value named out",'
                 ' "line": null, "col": null}}'))
        trace_text(page, "w = 3.0\nL = w * w\n")
        save(page, out, "error-without-line")
        page.unroute("**/api/trace/stream")
        # A medium graph: readable, panned to follow the step; then zoomed out.
        trace_text(page, chain(40))
        for _ in range(30):
            page.keyboard.press("ArrowRight")
        save(page, out, "chain-40")
        page.click("#zoom-out")
        page.click("#zoom-out")
        page.click("#zoom-out")
        save(page, out, "chain-40-zoomed-out")
        # A graph too big to draw: said so, with the results, and the narration still steps.
        trace_text(page, chain(2000))
        page.keyboard.press("End")
        save(page, out, "chain-2000")
        # ... then an error: the faded note is the last good trace, and no graph is mentioned.
        trace_text(page, "x = +* 2\n")
        save(page, out, "chain-2000-then-error")
        # "✎ Your program", still empty: an empty editor with its hint, not a copy.
        page.evaluate("localStorage.clear()")
        page.goto(url)  # not reload(): the fragment would bring the last program back
        page.wait_for_selector('#app[data-status="ready"]')
        pick_theme(page, theme)
        page.select_option("#preset", label="✎ Your program")
        page.wait_for_selector('#app[data-status="empty"]')
        save(page, out, "your-program-empty")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-shots")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--theme", default="auto", choices=["auto", "light", "dark", "projector"])
    parser.add_argument("--readme", action="store_true", help="write docs/screenshot.png and stop")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    out = pathlib.Path(args.out)

    def run(url: str) -> None:
        if args.readme:
            readme(url, pathlib.Path(__file__).resolve().parents[2] / "docs" / "screenshot.png")
        else:
            shoot(url, out, width, height, args.theme)

    if args.url:
        run(args.url)
    else:
        with running_server() as url:
            run(url)


if __name__ == "__main__":
    main()
