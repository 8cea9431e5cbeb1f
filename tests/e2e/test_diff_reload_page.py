"""A newcomer at 1024x768: a program with a syntax error, traced (Ctrl+Enter), then the page
reloaded, showed "changed only" beside an unticked "Compare runs" (render/diff.js hides it
while comparing is off, but only once a walk is shown: none is, the program not tracing)."""
from __future__ import annotations

import pytest

from page_helpers import trace
from test_quiz_tensors_page import SHOTS


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_changed_only_stays_hidden_after_a_reload_with_compare_off(open_explorer, size):
    ex = open_explorer(*size)
    page = ex.page
    trace(page, "a = 1.0\nb = (a +\n", status="error")
    page.reload()
    page.wait_for_selector("#diff-toggle", state="attached")
    page.wait_for_selector('#app[data-status="error"]')   # the draft, traced again: the same error
    assert not page.locator("#diff-toggle").is_checked()
    assert not page.locator(".diff-filter-switch").is_visible()
    page.screenshot(path=f"{SHOTS}/diff-reload-error-{size[0]}.png")
