"""What the walk does not record, in a real browser (issue 9 review, the bug lab): a node made
inside `with no_grad():` is drawn as not recorded, the edge into detach(x) carries a scissors
mark, and the trace's warnings (docs/trace-format.md, "Warnings") show in a strip under the
narration at "Done" (in forward mode from a kink's step on); a click on one selects its place
in the editor."""
from __future__ import annotations

from page_helpers import caret, choose, get_program, leave_editor, node, own_program, wait_step

from gradwalk.engine.trace.runner import run_trace
from gradwalk.server.presets import presets

PROGRAMS = {p["id"]: p["program"] for p in presets()}


def _offset(text: str, line: int, col: int) -> int:
    """The editor offset of (line 1-based, col 0-based) in `text` (ASCII programs)."""
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + col


def _end(page) -> None:
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))


def _click_selects(page, warning: dict, text: str) -> None:
    """Clicking the strip's warning selects its span in the editor."""
    page.locator("#warnings button.warning").first.click()
    start = _offset(get_program(page), warning["line"], warning["col"])
    end = _offset(get_program(page), warning["end_line"], warning["end_col"])
    page.wait_for_function("([a, b]) => { const s = document.querySelector('#editor .editor')"
                           ".gradwalkEditor.view.state.selection.main; return s.from === a && s.to === b; }",
                           arg=[start, end])
    assert sorted(caret(page)) == [start, end]
    assert get_program(page)[start:end] == text


def test_a_no_grad_node_is_drawn_as_not_recorded_and_warned_about(explorer):
    page = explorer.page
    choose(page, "bug-no-grad")
    body = run_trace(PROGRAMS["bug-no-grad"])
    e = node(page, "e")
    assert e.get_attribute("data-no-grad") == "true"
    assert "no-grad" in e.get_attribute("class")
    assert e.locator("text.no-grad-tag").text_content().startswith("no grad")
    assert e.locator("rect.box").evaluate("r => getComputedStyle(r).strokeDasharray") not in ("none", "")
    # the recorded nodes are not marked
    assert page.locator("g.node.no-grad").count() == 1
    assert node(page, "d").get_attribute("data-no-grad") is None
    # no warning while stepping; at Done the engine's warning, clickable
    assert page.locator("#warnings").is_hidden()
    _end(page)
    strip = page.locator("#warnings")
    strip.wait_for()
    [warning] = body["warnings"]
    assert strip.locator("li").count() == 1
    assert strip.locator("li").get_attribute("data-kind") == "cut"
    assert warning["message"] in strip.inner_text()
    assert "line 6, col 9" in strip.inner_text()
    _click_selects(page, warning, "a * b")
    # stepping back from Done hides the strip again
    leave_editor(page)
    page.keyboard.press("ArrowLeft")
    strip.wait_for(state="hidden")
    assert explorer.unexpected_errors() == []


def test_detach_shows_the_cut_and_its_warning(explorer):
    page = explorer.page
    choose(page, "bug-detach")
    body = run_trace(PROGRAMS["bug-detach"])
    cut = page.locator("g.edge.cut")
    assert cut.count() == 1
    mark = cut.locator("g.cut-mark")
    assert mark.count() == 1 and mark.locator("text").text_content() == "✂"
    # the scissors sit on the edge's line, halfway
    box, line = mark.bounding_box(), cut.locator("path.edge-line").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert line["x"] - 1 <= cx <= line["x"] + line["width"] + 1
    assert line["y"] - 16 <= cy <= line["y"] + line["height"] + 16
    assert page.locator("g.edge:not(.cut) g.cut-mark").count() == 0
    _end(page)
    [warning] = body["warnings"]
    page.locator("#warnings li[data-kind='cut']").wait_for()
    _click_selects(page, warning, "detach(a * b)")
    assert explorer.unexpected_errors() == []


def test_forward_mode_warns_from_the_kink_on(explorer):
    page = explorer.page
    program = "x = 0.0\nw = 2.0\nr = relu(x)\nL = r * w\n"
    own_program(page, program)
    page.select_option("#mode", "forward")
    page.wait_for_selector('#app[data-status="ready"]')
    leave_editor(page)
    strip = page.locator("#warnings")
    for step in (1, 2):   # x, w: no kink yet
        page.keyboard.press("ArrowRight")
        wait_step(page, step)
        assert strip.is_hidden()
    page.keyboard.press("ArrowRight")   # r = relu(x) at x = 0
    wait_step(page, 3)
    strip.wait_for()
    item = strip.locator("li")
    assert item.count() == 1 and item.get_attribute("data-kind") == "non_differentiable"
    assert "relu" in item.inner_text() and "line 3, col 5" in item.inner_text()
    page.keyboard.press("ArrowLeft")
    wait_step(page, 2)
    strip.wait_for(state="hidden")
    assert explorer.unexpected_errors() == []
