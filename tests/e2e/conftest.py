"""Browser tests: the real server in a subprocess, Debian's headless Chromium, the built page.

Needs `npm ci && npm run build` first (static/dist/main.js) and `chromium` on PATH. Without
chromium the tests skip, except under CI (env CI set), where they fail. No browser is ever
downloaded: Playwright drives the system chromium through `executable_path`.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, sync_playwright

from live_server import BROWSER_ARGS, REPO, running_server

BUNDLE = REPO / "static" / "dist" / "main.js"
# Chrome logs every non-2xx fetch as a console error; a 422 is the page working as meant.
EXPECTED_CONSOLE = ("the server responded with a status of 422",)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not on PATH (apt-get install chromium)")
        pytest.skip("chromium is not on PATH (apt-get install chromium)")
    return path


@pytest.fixture(scope="session")
def app_url() -> str:
    if not BUNDLE.exists():
        pytest.fail(f"{BUNDLE.relative_to(REPO)} is missing: run `npm ci && npm run build`")
    with running_server() as url:
        yield url


@pytest.fixture(scope="session")
def chromium(chromium_path):
    # Named apart from pytest-playwright's `browser`, which would want a downloaded build.
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=BROWSER_ARGS)
        yield browser
        browser.close()


@dataclass
class Explorer:
    """The explorer page and the console errors and page errors it has logged."""

    page: Page
    errors: list[str] = field(default_factory=list)

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(s in e for s in EXPECTED_CONSOLE)]


@pytest.fixture
def open_explorer(chromium, app_url):
    """open_explorer(width, height): a fresh page at the explorer in a fresh browser context
    (empty storage), with the first preset traced and drawn."""
    contexts = []

    def open_page(width: int = 1600, height: int = 900) -> Explorer:
        context = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        ex = Explorer(page)
        page.on("console", lambda m: m.type == "error" and ex.errors.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: ex.errors.append(f"pageerror: {e}"))
        page.goto(app_url)
        page.wait_for_selector('#app[data-status="ready"]')
        return ex

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def explorer(open_explorer) -> Explorer:
    """A fresh page at the explorer (1600x900), with the first preset traced and drawn."""
    return open_explorer()
