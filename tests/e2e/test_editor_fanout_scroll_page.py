"""The editor keeps line 1 in view while a's fan-out is explained (a newcomer, 1024x768): the
tanh example's 7 lines fill the editor there, and from step 7 (`L = t * c`, the last line)
to Done the reveal's 24 px margin scrolled it one line down, to the blank line the program's
final newline makes, so `a = 1.0` was hidden through the backward pass. Now a program that
fits is never scrolled; one that does not is scrolled no further than its last line of text,
with the step's line whole in view. In Chromium; geometry from bounding boxes (px), each step
read once the editor's scroll has settled (two animation frames), never after a sleep."""
from __future__ import annotations

import pathlib

import pytest
from page_helpers import EDITOR, choose, leave_editor, wait_step
from test_projector_layout_page import themed, total
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SHOTS = pathlib.Path("/tmp/shots20/u20")
TANH = "seed-tanh-fanout"  # the first example: a = 1.0 ... L = t * c, and a final newline

# The editor's scroll, its rows of text, and which lines are whole in view: line 1's, the
# step mark's, and the last line with text; `beyond` is whether a line past the last line of
# text (the blank one a final newline makes) is in view.
SEEN = """e => {
  const v = e.gradwalkEditor.view, s = v.scrollDOM, box = s.getBoundingClientRect();
  const whole = (r) => r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  const lines = [...e.querySelectorAll('.cm-content .cm-line')];
  const text = v.state.doc.toString().replace(/\\s+$/, '');
  const count = text.split('\\n').length;
  const lineBox = (n) => { const b = v.lineBlockAt(v.state.doc.line(n).from);   // in or out of the DOM
    return {top: v.documentTop + b.top, bottom: v.documentTop + b.bottom}; };
  const mark = e.querySelector('.mark-step');
  return {scrollTop: s.scrollTop, lineHeight: v.defaultLineHeight, rows: Math.floor((s.clientHeight + 1) / v.defaultLineHeight), count,
          first: lines[0]?.textContent, firstShown: whole(lineBox(1)), lastShown: whole(lineBox(count)),
          beyond: v.state.doc.lines > count && lineBox(count + 1).top < box.bottom - 1,
          marked: mark ? mark.closest('.cm-line').textContent : null,
          markShown: !mark || whole(mark.getBoundingClientRect())};
}"""


# Resolves once the editor's scroll and height have not changed for three frames: a step's
# reveal scrolls on CodeMirror's frame and whole lines on the next, and a narration that
# takes another line shrinks the editor, which scrolls again once it has measured that.
STILL = """e => new Promise((done) => {
  const s = e.gradwalkEditor.view.scrollDOM;
  let last = '', same = 0, frames = 0;
  const look = () => {
    const now = `${s.scrollTop} ${s.clientHeight}`;
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 3 || ++frames > 60) done(); else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""


def settled(page) -> dict:
    """What the editor shows once its scroll has settled after a step."""
    page.eval_on_selector(EDITOR, STILL)
    return page.eval_on_selector(EDITOR, SEEN)


def walk_to_done(page) -> list[tuple[int, dict]]:
    """Step from 0 to Done with → as a lecturer does; what the editor showed at each step."""
    leave_editor(page)
    seen = [(0, settled(page))]
    for step in range(1, total(page) + 1):
        page.keyboard.press("ArrowRight")
        wait_step(page, step)
        seen.append((step, settled(page)))
    return seen


def opened_tanh(open_page, size, theme=None):
    """The page at `size` in `theme` (None: the default one), with the tanh example traced."""
    page = open_page(*size)
    if theme:
        themed(page, theme)
    if page.locator("#preset").input_value() != TANH:
        choose(page, TANH)
    return page


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_program_that_fits_is_not_scrolled_through_the_walk(open_page, size):
    page = opened_tanh(open_page, size)
    seen = walk_to_done(page)
    assert seen[0][1]["rows"] >= seen[0][1]["count"] == 7, seen[0]   # the whole program fits
    assert [s["marked"] for _, s in seen[7:]] == ["L = t * c"] * 4 + ["t = tanh(d)"] + ["d = e + a"] * 2 \
        + ["e = a * b"] * 2 + ["L = t * c"], [s["marked"] for _, s in seen]   # a's fan-out, then Done
    for step, s in seen:
        # was 23 px (one line) from step 7 to Done at 1024x768, `a = 1.0` above the top edge
        assert s["scrollTop"] == 0, (step, s)
        assert s["first"] == "a = 1.0" and s["firstShown"], (step, s)
        assert s["markShown"] and s["lastShown"], (step, s)
    page.screenshot(path=SHOTS / f"editor-done-{size[0]}-default.png")


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_on_a_projector_the_steps_line_shows_and_no_blank_line_under_the_last(open_page, size):
    # The projector's larger type leaves the editor 6 rows for the 7 lines: it scrolls, by
    # as little as shows the step's line (at 1024x768 it went two lines down, to the blank
    # line under `L = t * c`, hiding lines 1 and 2 through the backward pass).
    page = opened_tanh(open_page, size, "projector")
    seen = walk_to_done(page)
    assert seen[0][1]["rows"] == 6, seen[0]
    for step, s in seen:
        assert s["markShown"], (step, s)
        assert not s["beyond"], (step, s)   # the blank line after the last is never shown
        # one line down at most, from L = t * c's step on (line 1 shows until there)
        assert s["scrollTop"] <= s["lineHeight"] + 0.5, (step, s)
        if step < 6:   # the lines before it all fit: nothing scrolls
            assert s["firstShown"], (step, s)
    page.screenshot(path=SHOTS / f"editor-done-{size[0]}-projector.png")


def test_a_new_example_opens_at_its_first_line(open_page):
    # layer-norm (7 lines, fits) chosen after a longer example scrolled to its end opened with
    # the last one's scroll: its line 1 hidden at step 0
    page = open_page(1024, 768)
    choose(page, "ledger-two-blocks-checkpoint")
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, total(page))
    assert settled(page)["scrollTop"] > 100   # the last step's line is far down
    choose(page, "layer-norm")
    s = settled(page)
    assert s["rows"] >= s["count"], s
    assert s["scrollTop"] == 0 and s["firstShown"], s
