"""The program text in a real browser: the example menu never destroys typed text, the keys go
back to the player after a menu, the text survives a reload, and after an error nothing on the
page pretends to belong to the new text."""
from __future__ import annotations

from page_helpers import (
    EDITOR, YOUR_PROGRAM, caret, choose, get_program, leave_editor, marked, node, own_program, paste,
    step_forward, trace, wait_marked, wait_step,
)

TANH_PROGRAM = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"

MINE = "w = 3.0\nx = 2.0\nL = w * x + w\n"


def menu(page) -> tuple[str, str]:
    """The example menu's value and the text of its selected option."""
    return tuple(page.locator("#preset").evaluate("s => [s.value, s.selectedOptions[0].textContent]"))


def test_choosing_an_example_gives_the_arrow_keys_back_to_the_player(explorer):
    page = explorer.page
    choose(page, "seed-q-ab-plus-a")
    assert page.evaluate("document.activeElement.id") != "preset"
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    assert menu(page)[0] == "seed-q-ab-plus-a"  # the menu did not move

    # Esc leaves a menu that has the focus, as it leaves the editor.
    page.locator("#preset").focus()
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") != "preset"
    page.keyboard.press("ArrowRight")
    wait_step(page, 2)
    assert explorer.unexpected_errors() == []


def test_a_saved_text_that_fails_opens_with_its_error_and_no_graph(explorer):
    page = explorer.page
    page.evaluate("localStorage.setItem('gradwalk.editor.v1', JSON.stringify({program: 'y = x +* 2\\n', draft: 'y = x +* 2\\n'}))")
    # Opened afresh at "/": a reload would reopen the URL's #s= link (written once the first
    # trace showed), and a link wins over the saved draft.
    page.goto(page.url.split("#")[0])
    page.wait_for_selector('#app[data-status="error"]')
    assert get_program(page) == "y = x +* 2\n"
    assert page.locator(".program-error").is_visible()
    assert page.locator("#graph-badge").is_hidden()  # there is no last good trace
    assert page.locator("#narration").inner_text() == "Not traced: see the message next to the program."
    assert page.locator("#player").get_attribute("data-disabled") == "true"
    assert page.locator("#player .phase").inner_text() == "error"  # not "ready"
    assert [e for e in explorer.unexpected_errors()] == []


def test_typed_text_survives_the_example_menu(explorer):
    page = explorer.page
    own_program(page, MINE)
    assert menu(page) == ("", YOUR_PROGRAM)  # not the last example's name

    # The review's sequence: open the menu, Esc, then the arrow key a lecturer means for the player.
    page.locator("#preset").click()
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#app[data-status="ready"]')
    if menu(page)[0] != "":  # the menu took the key: an example is shown, the focus is back
        assert page.evaluate("document.activeElement.id") != "preset"
    choose(page, "seed-matmul-2x2")
    choose(page, "seed-tanh-fanout")
    assert YOUR_PROGRAM in page.locator("#preset option").all_text_contents()

    choose(page, label=YOUR_PROGRAM)
    assert node(page, "w * x").count() == 1
    assert get_program(page) == MINE
    assert menu(page) == ("", YOUR_PROGRAM)
    assert explorer.unexpected_errors() == []


def test_typed_text_is_kept_across_a_reload(explorer):
    page = explorer.page
    own_program(page, MINE)
    page.wait_for_function("t => (localStorage.getItem('gradwalk.editor.v1') || '').includes(t)", arg="L = w * x + w")
    page.reload()
    page.wait_for_selector('#app[data-status="ready"]')
    assert get_program(page) == MINE
    assert menu(page) == ("", YOUR_PROGRAM)
    assert node(page, "w * x").count() == 1  # traced on open
    assert explorer.unexpected_errors() == []


def test_an_example_chosen_before_a_reload_comes_back_with_the_draft(explorer):
    page = explorer.page
    own_program(page, MINE)
    choose(page, "seed-q-ab-plus-a")
    page.wait_for_function("() => (localStorage.getItem('gradwalk.editor.v1') || '').startsWith('{\"program\":\"a = 2.0')")
    page.reload()
    page.wait_for_selector('#app[data-status="ready"]')
    assert menu(page)[0] == "seed-q-ab-plus-a"
    choose(page, label=YOUR_PROGRAM)
    assert node(page, "w * x").count() == 1
    assert get_program(page) == MINE
    assert explorer.unexpected_errors() == []


def test_after_an_error_the_old_graph_is_the_last_good_trace(explorer):
    page = explorer.page
    step_forward(page, 5)
    assert marked(page, "step") == "e + a"  # d = e + a

    trace(page, "x = 1.0\n\ny = x +* 2\n", status="error")
    # The player says it has nothing to step: no phase or step count of the old trace.
    assert page.locator("#player .phase").inner_text() == "error"
    assert page.locator("#player .counter").inner_text() == "no steps"
    badge = page.locator("#graph-badge")
    assert badge.is_visible() and badge.inner_text().lower() == "last good trace"
    assert page.locator("#player").get_attribute("data-disabled") == "true"
    assert page.locator("#player button.forward").is_disabled()
    assert page.locator("#player .scrubber").is_disabled()
    assert marked(page, "step") is None  # no old highlight on the new text
    assert marked(page, "error") is not None
    # A pasted program that does not derive from the example is one's own (state.js editProgram).
    assert menu(page) == ("", "✎ Your program")
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    assert page.locator("#player").get_attribute("data-step") == "5"  # the old graph is not stepped
    node(page, "e").hover()
    assert marked(page, "hover") is None  # its spans are of the old text
    assert "last good trace" in page.locator("#narration").inner_text()

    # Editing keeps the error, marked as about the text before the edit, without its highlight.
    box = page.locator(".program-error")
    page.locator("#program").press("End")
    page.keyboard.type("  # fixing")
    page.wait_for_selector('.program-error[data-stale="true"]')
    assert "(before your edit)" in box.inner_text()
    assert marked(page, "error") is None

    # The next good trace clears it all.
    trace(page, "x = 1.0\ny = x * 2\n")
    assert box.is_hidden() and badge.is_hidden()
    assert page.locator("#player").get_attribute("data-disabled") == "false"
    step_forward(page, 1)
    assert explorer.unexpected_errors() == []


def test_an_edit_hides_highlights_computed_on_the_old_text(explorer):
    page = explorer.page
    step_forward(page, 4)
    assert marked(page, "step") == "a * b"
    page.locator("#program").press("Control+Home")
    page.keyboard.type("# a comment\n")
    wait_marked(page, "step", None)
    paste(page, TANH_PROGRAM)  # the traced text again: the highlight is right again
    wait_marked(page, "step", "a * b")
    assert explorer.unexpected_errors() == []


def test_an_error_without_a_line_shows_no_line(explorer):
    page = explorer.page
    page.route("**/api/trace/stream", lambda route: route.fulfill(
        status=422, content_type="application/json",
        body='{"error": {"kind": "unknown_output", "message": "no value named out", "line": null, "col": null}}'))
    trace(page, MINE, status="error")
    box = page.locator(".program-error")
    assert box.inner_text().lower() == "unknown output: no value named out"
    assert "line" not in box.inner_text().lower() and "null" not in box.inner_text().lower()
    assert box.get_attribute("data-line") == ""
    assert marked(page, "error") is None
    page.unroute("**/api/trace/stream")
    assert explorer.unexpected_errors() == []


def test_editing_an_example_never_replaces_your_program(explorer):
    page = explorer.page
    own_program(page, MINE)
    choose(page, "seed-q-ab-plus-a")
    example = get_program(page)
    reset = page.locator("#reset-example")
    assert reset.is_hidden()  # nothing to reset yet
    page.locator("#program").press("Control+End")
    page.keyboard.type("#")  # the review's repro: one character in the example
    page.wait_for_function("() => document.querySelector('#preset').selectedOptions[0].textContent.startsWith('Edited:')")
    assert menu(page)[0] == "seed-q-ab-plus-a"
    assert reset.is_visible()
    page.wait_for_function("() => (JSON.parse(localStorage.getItem('gradwalk.editor.v1') || '{}').edits || {})"
                           "['seed-q-ab-plus-a']")

    choose(page, label=YOUR_PROGRAM)
    assert get_program(page) == MINE  # was the edited example
    assert reset.is_hidden()
    choose(page, label=page.locator('#preset option[value="seed-q-ab-plus-a"]').text_content())
    edited = get_program(page)
    # The address bar follows a new program 250 ms later (static/js/permalink.js) and a link
    # wins over the drafts on reload, but page.reload() takes the URL before the page's own
    # pagehide could write it: write it now, as leaving the page does.
    page.evaluate("window.dispatchEvent(new Event('pagehide'))")
    assert edited != example and edited.rstrip("#") == example.rstrip("#") and edited.count("#") == example.count("#") + 1

    # Both drafts survive a reload; then "Reset example" gives the original back.
    page.wait_for_function("m => JSON.parse(localStorage.getItem('gradwalk.editor.v1') || '{}').draft === m", arg=MINE)
    page.reload()
    page.wait_for_selector('#app[data-status="ready"]')
    assert menu(page)[0] == "seed-q-ab-plus-a" and menu(page)[1].startswith("Edited:")
    assert get_program(page) == edited
    # "✎ Your program" holds MINE, so the edit would be kept only by Ctrl+Z: the page asks
    # first (render/reset.js; tests/e2e/test_lost_work_page.py).
    page.once("dialog", lambda dialog: dialog.accept())
    reset.click()
    page.wait_for_function("([sel, t]) => document.querySelector(sel).gradwalkEditor.getText() === t"
                           " && document.querySelector('#app').dataset.status === 'ready'", arg=[EDITOR, example])
    assert not menu(page)[1].startswith("Edited:") and reset.is_hidden()
    choose(page, label=YOUR_PROGRAM)
    assert get_program(page) == MINE
    assert explorer.unexpected_errors() == []


GREEK = "α = 1.0\nβ = α * 3.0\nL = tanh(β)\n"


def test_spans_on_lines_with_non_ascii_text(explorer):
    page = explorer.page
    trace(page, GREEK)
    node(page, "β").hover()
    wait_marked(page, "hover", "α * 3.0")
    node(page, "L").hover()
    wait_marked(page, "hover", "tanh(β)")

    # An astral character takes two UTF-16 units but is one column: node spans and errors.
    trace(page, "𝐱 = 1.0\nβ = 𝐱 * 2.0\n")
    node(page, "β").hover()
    wait_marked(page, "hover", "𝐱 * 2.0")
    trace(page, "𝐱 = 1.0\nβ = 𝐱 * 𝐱 + foo(𝐱)\n", status="error")  # unknown function at columns 12..15
    assert marked(page, "error") == "foo"
    anchor, head = caret(page)
    assert anchor == head  # marked, not selected
    assert explorer.unexpected_errors() == []


def line_in_view(page, line: int) -> bool:
    """Whether 1-based `line` of the editor is drawn inside the editor's visible box."""
    return page.eval_on_selector(EDITOR, """(e, line) => {
      const view = e.gradwalkEditor.view;
      const at = view.coordsAtPos(view.state.doc.line(line).from);  // null when not drawn
      const box = view.scrollDOM.getBoundingClientRect();
      return Boolean(at) && at.top >= box.top && at.bottom <= box.bottom;
    }""", line)


def test_an_error_out_of_view_is_scrolled_to(explorer):
    page = explorer.page
    for lines, bad in [(102, 2), (5000, 4001)]:
        text = "".join("x = x +* 2\n" if i == bad else ("x = 1.0\n" if i == 1 else "x = x * 1.0\n")
                       for i in range(1, lines + 1))
        paste(page, text)
        editor = page.locator("#program")
        editor.focus()
        editor.press("Control+End")  # the caret at the end: the editor scrolled to the bottom
        page.wait_for_function("([sel, n]) => { const v = document.querySelector(sel).gradwalkEditor.view;"
                               " return v.state.selection.main.head === v.state.doc.length; }", arg=[EDITOR, lines])
        assert not line_in_view(page, bad)
        page.keyboard.press("Control+Enter")
        page.wait_for_selector('#app[data-status="error"]')
        assert f"Line {bad}" in page.locator(".program-error").inner_text()
        page.wait_for_function("([sel, n]) => { const v = document.querySelector(sel).gradwalkEditor.view;"
                               " const at = v.coordsAtPos(v.state.doc.line(n).from), box = v.scrollDOM.getBoundingClientRect();"
                               " return Boolean(at) && at.top >= box.top && at.bottom <= box.bottom; }", arg=[EDITOR, bad])
        assert line_in_view(page, bad), lines
        # The mark is drawn on that line, and the line numbers scrolled with the text.
        assert marked(page, "error") is not None
        assert page.locator(".cm-lineNumbers .cm-gutterElement", has_text=str(bad)).first.is_visible()
        assert caret(page) == (len(text), len(text))  # the caret stays where the user left it
    assert explorer.unexpected_errors() == []


def test_an_empty_your_program_starts_empty_with_a_hint(explorer):
    page = explorer.page
    example = get_program(page)
    assert example == TANH_PROGRAM
    choose(page, label=YOUR_PROGRAM, status="empty")  # nothing to trace yet, and no error
    assert get_program(page) == ""  # not a copy of the example on screen
    hint = page.locator("#editor .cm-placeholder")
    assert hint.is_visible() and hint.inner_text().startswith("Type a program, e.g.")
    assert page.locator(".program-error").is_hidden()
    assert page.locator("g.node").count() == 0  # the example's graph is not the empty program's
    assert page.locator("#narration").inner_text().startswith("Type a program")
    assert menu(page) == ("", YOUR_PROGRAM)
    choose(page, "seed-tanh-fanout")
    assert get_program(page) == example  # the example is untouched
    choose(page, label=YOUR_PROGRAM, status="empty")
    assert get_program(page) == ""
    assert explorer.unexpected_errors() == []


def test_typing_after_an_error_never_replaces_program_text(explorer):
    page = explorer.page
    broken = "a = 1.0\nb = tanh(a * 2.0 + a"
    paste(page, broken)
    editor = page.locator("#program")
    editor.focus()
    editor.press("Control+End")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('#app[data-status="error"]')
    assert marked(page, "error") is not None  # the error is marked ...
    anchor, head = caret(page)
    assert anchor == head == len(broken)  # ... not selected
    page.keyboard.type(")")  # the fix, typed where the caret is
    assert get_program(page) == broken + ")"  # was "b = tanh)"
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('#app[data-status="ready"]')
    assert node(page, "b").count() == 1

    # The same after the Trace button, with the focus elsewhere: a click back in, then typing.
    paste(page, broken)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="error"]')
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(")")
    assert get_program(page) == broken + ")"
    # Undo takes the typing back, one step at a time; the text was never lost.
    page.keyboard.press("Control+z")
    page.wait_for_function("([sel, t]) => document.querySelector(sel).gradwalkEditor.getText() === t",
                           arg=[EDITOR, broken])
    assert explorer.unexpected_errors() == []


def test_the_engines_hint_is_shown_under_the_error(explorer):
    # A reserved name: the engine's error carries a hint (docs/trace-format.md), and the page
    # shows it on its own line, with the text untouched.
    page = explorer.page
    text = "__x = 1.0\nL = __x * 2.0\n"
    trace(page, text, status="error")
    box = page.locator(".program-error")
    hint = box.locator(".error-hint")
    assert hint.is_visible()
    assert hint.inner_text().startswith("Hint: ") and len(hint.inner_text()) > 12
    assert box.get_attribute("data-line") == "1" and box.get_attribute("data-col") == "0"
    assert get_program(page) == text
    assert explorer.unexpected_errors() == []
