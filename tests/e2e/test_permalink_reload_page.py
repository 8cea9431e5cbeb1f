"""A reload right after a step keeps the step (polish17 item 6): the address bar takes a step
once the player rests (permalink.js, 250 ms), and a reload within that time reopened the step
before. The page flushes the pending step as it is left (pagehide, visibilitychange), and the
reload, which reopens the address it had when it began, is brought to the step flushed."""
from __future__ import annotations

from page_helpers import leave_editor, wait_step


def _step_and_reload(page, start: int, steps: int) -> None:
    leave_editor(page)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    wait_step(page, start + steps)
    page.reload()   # at once: the 250 ms have not passed
    page.wait_for_selector('#app[data-status="ready"]')


def test_a_reload_at_once_after_a_step_reopens_that_step(explorer):
    page = explorer.page
    _step_and_reload(page, 0, 3)
    wait_step(page, 3)
    assert page.get_attribute("#player", "data-step") == "3"
    # and again from there, the address the last flush left
    _step_and_reload(page, 3, 2)
    wait_step(page, 5)
    # a step back, rested (the address written): a reload opens it, not an older flush
    page.keyboard.press("ArrowLeft")
    wait_step(page, 4)
    page.wait_for_selector('#app[data-url-step="4"]', state="attached")
    page.wait_for_timeout(300)
    page.reload()
    page.wait_for_selector('#app[data-status="ready"]')
    wait_step(page, 4)
    assert explorer.unexpected_errors() == []


def test_a_hidden_tab_has_its_step_in_the_address_bar(explorer):
    page = explorer.page
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    # the tab hidden (another app on a phone, which may then discard it): written at once
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    assert page.get_attribute("#app", "data-url-step") == "1"
