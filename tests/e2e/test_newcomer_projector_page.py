"""Issue 14's newcomer review of the page on a projector, in Chromium at 1024x768 and 1280x800
in the projector theme: the graph stays readable with "Compare runs" on; Trace keeps the
editor's view on the line the user edited; the detail panel's camera note, typeset rules
(size, where a long one breaks, a summed axis said once); the mode menu's "H v" entry says
how to get hvp mode and gets it in one step. Numbers against PyTorch float64; geometry from
bounding boxes (px), never from screenshots."""
from __future__ import annotations

import pytest
import torch
from page_helpers import EDITOR, adjoint, get_program, leave_editor, node, wait_step
from test_projector_layout_page import themed
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SIZES = [(1024, 768), (1280, 800)]
IDS = ["1024x768", "1280x800"]
TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"


def tanh_hessian_column() -> list[float]:
    """H e_a of the tanh example over (a, b, c), by PyTorch float64."""
    def L(x):
        a, b, c = x
        return torch.tanh(a * b + a) * c
    x = torch.tensor([1.0, -0.5, 2.0], dtype=torch.float64)
    return torch.autograd.functional.hessian(L, x)[:, 0].tolist()


# ---------------------------------------------------------------- (4) the mode menu's H v


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_hvp_entry_says_how_to_get_it_and_adds_the_line(open_page, size):
    """The entry was disabled (and hidden) without a `# hvp:` line; only its tooltip said
    why. It now says so in its text, and choosing it (by keyboard) adds the line and traces."""
    page = themed(open_page(*size))
    option = page.locator('#mode option[value="hvp"]')
    assert option.get_attribute("hidden") is None and option.is_enabled()
    # what a screen reader reads and a sighted user sees in the open menu
    assert page.get_by_role("option", name="H v: add # hvp: line").count() == 1
    # by keyboard: the menu focused, End picks its last entry
    page.locator("#mode").focus()
    page.keyboard.press("End")
    page.wait_for_selector('#modes[data-mode="hvp"]')
    page.wait_for_selector('#app[data-status="ready"]')
    assert get_program(page) == '# hvp: {"a":1}\n' + TANH
    assert page.locator("#mode").input_value() == "hvp"
    assert option.inner_text() == "hvp mode (H v)"
    note = page.locator("#reset-note")
    assert note.is_visible() and "Ctrl+Z" in note.inner_text()
    # its numbers: Done's boxes hold (H v)_x = (H e_a)_x, as PyTorch float64 says
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    for name, want in zip("abc", tanh_hessian_column()):
        assert adjoint(page, name) == pytest.approx(want, abs=1e-12), name
    # one Ctrl+Z in the editor takes the line out again
    page.locator("#program").focus()
    page.keyboard.press("Control+z")
    page.wait_for_function("([sel, text]) => document.querySelector(sel).gradwalkEditor.getText() === text",
                           arg=[EDITOR, TANH])
    page.keyboard.press("Control+Enter")   # traced without it: reverse mode, the entry says how again
    page.wait_for_selector('#modes[data-mode="reverse"]')
    assert option.inner_text() == "H v: add # hvp: line"
    page.screenshot(path=f"/tmp/p8/hvp-entry-{size[0]}.png")
