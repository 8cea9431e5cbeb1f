"""The narration says why a masked local derivative has its value (issue 14 §4, A2;
engine/trace/edge_notes.py), on the page: the issue's `c ** d` at c = 0, the step where d̄
takes (c ** d) * log(c) = 0, in reverse mode and in hvp mode (the masked row's step of the
recorded backward pass), at 1280x800 and 1024x768, light and projector: the words are in the
narration and the narration box shows them whole (not cut). With GRADWALK_SHOOT=<folder> the
pages are saved for a person to look at."""
from __future__ import annotations

import pytest
from page_helpers import step_forward, trace
from shoot import pick_theme
from test_engine_masks_page import _shoot

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace

POW0 = "c = 0.0\nd = 2.5\nL = c ** d + d * d\n"
WORDS = "taken as 0 at c = 0 (PyTorch's convention, its limit: log(c) is -∞ there)"
SIZES = [(1280, 800), (1024, 768)]


def _step_of(text: str, options: Options | None, starts: str) -> int:
    """The step that shows the first event whose narration starts with `starts` and says
    WORDS (the engine's own events, so the test follows the walk)."""
    body = run_trace(text, options=options) if options else run_trace(text)
    return next(k + 1 for k, e in enumerate(body["events"])
                if (e.get("narration") or "").startswith(starts) and WORDS in e["narration"])


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("mode", ["reverse", "hvp"])
def test_the_masked_step_says_why_on_the_page(open_explorer, size, theme, mode):
    ex = open_explorer(*size)
    page = ex.page
    pick_theme(page, theme)
    header, options, starts = ("", None, "c ** d: d̄ +=") if mode == "reverse" else (
        '# hvp: {"c": 0, "d": 1}\n', Options(mode="hvp", vector={"c": 0.0, "d": 1.0}),
        "L̄ * c ** d * log(c): d(")
    trace(page, header + POW0)
    step_forward(page, _step_of(POW0, options, starts))
    box = page.locator("#narration")
    assert WORDS in box.inner_text()
    # the whole sentence is on screen: the box is not cut off by the window
    rect = box.bounding_box()
    assert rect is not None and rect["y"] + rect["height"] <= size[1] + 1, rect
    _shoot(page, f"edge-words-{mode}-{size[0]}x{size[1]}-{theme}")
    assert ex.unexpected_errors() == []
