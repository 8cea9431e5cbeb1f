"""Issue 14, section 1: nothing typed is lost by one click. A program typed over an example
is the user's own program ("✎ Your program"); an edit of an example that "Reset example"
takes off it comes back with Ctrl+Z (a CodeMirror transaction, not a new editor state) and
is kept as "✎ Your program"; the menu and the note beside the program say which it is."""
from __future__ import annotations

import json

import pytest

from page_helpers import EDITOR, YOUR_PROGRAM, choose, choose_theme, get_program

TYPED = ["w = 3.0", "x = 2.0", "L = relu(w * x - 1.0)"]
TYPED_TEXT = "\n".join(TYPED)
TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
TANH_ID, TANH_TITLE = "seed-tanh-fanout", "tanh with fan-out (a used twice)"
MINE = "q = 1.0\nL = q * q\n"
SIZES = [(1280, 800), (1024, 768)]


def menu_label(page) -> str:
    return page.locator("#preset").evaluate("s => s.selectedOptions[0].textContent")


def wait_text(page, text: str) -> None:
    page.wait_for_function("([sel, t]) => document.querySelector(sel).gradwalkEditor.getText() === t",
                           arg=[EDITOR, text])


def wait_traced(page, name: str) -> None:
    page.wait_for_function("n => document.querySelector('#app').dataset.status === 'ready'"
                           " && document.querySelector(`g.node[data-name=\"${n}\"]`)", arg=name)


def type_lines(page) -> None:
    for i, line in enumerate(TYPED):
        page.keyboard.type(line)
        if i < len(TYPED) - 1:
            page.keyboard.press("Enter")


def saved(page) -> dict:
    return page.evaluate("JSON.parse(localStorage.getItem('gradwalk.editor.v1') || '{}')")


@pytest.mark.parametrize("delete_first", [False, True], ids=["type-over", "delete-then-type"])
def test_a_program_typed_over_an_example_is_your_program(open_explorer, delete_first):
    """The issue's steps: select all, type three lines, Ctrl+Enter. Whether the browser
    reports one replacement or a deletion and then typing, the text is the user's own."""
    ex = open_explorer(1280, 800)
    page = ex.page
    page.locator("#program").click()
    page.keyboard.press("Control+A")
    if delete_first:
        page.keyboard.press("Delete")
        wait_text(page, "")
    type_lines(page)
    page.keyboard.press("Control+Enter")
    wait_traced(page, "w * x")
    assert get_program(page) == TYPED_TEXT
    assert menu_label(page) == YOUR_PROGRAM  # not "Edited: tanh with fan-out (a used twice)"
    assert page.locator("#reset-example").is_hidden()  # the example has nothing to lose
    choose(page, TANH_ID)
    assert get_program(page) == TANH and menu_label(page) == TANH_TITLE
    choose(page, label=YOUR_PROGRAM)
    assert get_program(page) == TYPED_TEXT
    assert ex.unexpected_errors() == []


def open_with_typed_edit(open_explorer, size, draft: str = ""):
    """The issue's page: the typed program saved as an edit of the tanh example (as the page
    before this fix saved it: the menu reads "Edited: ..."), "✎ Your program" = `draft`."""
    ex = open_explorer(*size)
    page = ex.page
    state = {"program": TYPED_TEXT, "preset": TANH_ID, "draft": draft, "edits": {TANH_ID: TYPED_TEXT}}
    page.evaluate("s => localStorage.setItem('gradwalk.editor.v1', s)", json.dumps(state))
    page.goto(page.url.split("#")[0])  # no link in the address: the saved drafts open
    wait_traced(page, "w * x")
    assert get_program(page) == TYPED_TEXT
    assert menu_label(page) == f"Edited: {TANH_TITLE}"
    return ex


@pytest.mark.parametrize("size", SIZES, ids=["1280x800", "1024x768"])
def test_reset_example_keeps_the_typed_text_both_ways(open_explorer, size):
    ex = open_with_typed_edit(open_explorer, size)
    page = ex.page
    page.locator("#reset-example").click()
    wait_text(page, TANH)
    wait_traced(page, "t")
    assert menu_label(page) == TANH_TITLE and page.locator("#reset-example").is_hidden()
    note = page.locator("#reset-note")
    assert note.is_visible() and note.get_attribute("data-keeps") == "draft"
    assert YOUR_PROGRAM in note.text_content() and "Ctrl+Z" in note.text_content()
    for theme in ("light", "projector"):
        page.evaluate("t => { const m = document.querySelector('#theme'); m.value = t;"
                      " m.dispatchEvent(new Event('change')); }", theme)
        page.screenshot(path=f"/tmp/lw/reset-{theme}-{size[0]}.png")

    # One way back: Ctrl+Z in the editor undoes the reset (and Ctrl+Shift+Z redoes it).
    page.locator("#program").click()
    page.keyboard.press("Control+Z")
    wait_text(page, TYPED_TEXT)
    page.wait_for_function("() => document.querySelector('#reset-note').hidden")  # the note is about the reset
    page.keyboard.press("Control+Shift+Z")
    wait_text(page, TANH)

    # The other way back: "✎ Your program" in the menu, also after a reload.
    page.wait_for_function("t => JSON.parse(localStorage.getItem('gradwalk.editor.v1') || '{}').draft === t",
                           arg=TYPED_TEXT)
    page.evaluate("window.dispatchEvent(new Event('pagehide'))")
    page.reload()
    page.wait_for_selector('#app[data-status="ready"]')
    choose(page, label=YOUR_PROGRAM)
    assert get_program(page) == TYPED_TEXT
    assert page.locator('g.node[data-name="w * x"]').count() == 1
    assert ex.unexpected_errors() == []


def dialog_answers(page, asked: list):
    """answer(accept): the page's next question (window.confirm) is put in `asked` and
    accepted or dismissed."""
    def answer(accept: bool):
        def on_dialog(dialog):
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        page.once("dialog", on_dialog)
    return answer


def test_reset_asks_first_when_your_program_holds_another_text(open_explorer):
    ex = open_with_typed_edit(open_explorer, (1280, 800), draft=MINE)
    page = ex.page
    asked = []
    answer = dialog_answers(page, asked)

    answer(False)  # "Cancel": nothing changes
    page.locator("#reset-example").click()
    assert len(asked) == 1 and YOUR_PROGRAM in asked[0] and "Ctrl+Z" in asked[0]
    assert get_program(page) == TYPED_TEXT and menu_label(page) == f"Edited: {TANH_TITLE}"

    answer(True)
    page.locator("#reset-example").click()
    wait_text(page, TANH)
    assert page.locator("#reset-note").get_attribute("data-keeps") == "undo"
    assert saved_draft(page) == MINE  # your program is never overwritten
    page.locator("#program").click()
    page.keyboard.press("Control+Z")
    wait_text(page, TYPED_TEXT)
    page.wait_for_function("() => document.querySelector('#preset').selectedOptions[0].textContent.startsWith('Edited:')")
    assert ex.unexpected_errors() == []


def saved_draft(page) -> str:
    page.evaluate("window.dispatchEvent(new Event('pagehide'))")
    return saved(page).get("draft")


def type_your_program(ex) -> None:
    """The review's steps: open /, select all, type the three lines, Ctrl+Enter."""
    page = ex.page
    page.locator("#program").click()
    page.keyboard.press("Control+A")
    type_lines(page)
    page.keyboard.press("Control+Enter")
    wait_traced(page, "w * x")
    assert menu_label(page) == YOUR_PROGRAM


@pytest.mark.parametrize("size", SIZES, ids=["1280x800", "1024x768"])
def test_practice_is_its_own_entry_and_your_program_stays(open_explorer, size):
    """Practice used to put its graph into "✎ Your program" (the review's l2 shot): the
    typed program was gone from the menu and Ctrl+Z did not bring it back."""
    ex = open_explorer(*size)
    page = ex.page
    type_your_program(ex)
    page.locator("#practice").click()
    page.wait_for_function("() => document.querySelector('#editor .editor').gradwalkEditor.getText().startsWith('# practice:')")
    page.wait_for_selector('#app[data-status="ready"]')
    assert menu_label(page) == "⚄ Practice graph"
    note = page.locator("#reset-note")
    assert note.is_visible() and note.get_attribute("data-keeps") == "entry" and YOUR_PROGRAM in note.text_content()
    page.screenshot(path=f"/tmp/lw/practice-{size[0]}.png")
    practice_text = get_program(page)
    # One way back: Ctrl+Z in the editor.
    page.locator("#program").click()
    page.keyboard.press("Control+Z")
    wait_text(page, TYPED_TEXT)
    page.keyboard.press("Control+Shift+Z")
    wait_text(page, practice_text)
    # The other: "✎ Your program" in the menu, and the practice graph stays its own entry.
    # choose() returns once the menu and the status agree, which the previous entry's
    # "ready" can satisfy before the switch lands: wait for the text itself (CI saw the
    # previous text read back once at 1024x768)
    choose(page, label=YOUR_PROGRAM)
    wait_text(page, TYPED_TEXT)
    choose(page, label="⚄ Practice graph")
    wait_text(page, practice_text)
    assert saved_draft(page) == TYPED_TEXT
    assert ex.unexpected_errors() == []


def test_new_numbers_asks_before_rewriting_your_program(open_explorer):
    """New numbers rewrote the numbers of "✎ Your program" with no question and no undo."""
    ex = open_explorer(1280, 800)
    page = ex.page
    type_your_program(ex)
    asked = []
    answer = dialog_answers(page, asked)

    answer(False)  # "Cancel": nothing changes
    page.locator("#quiz-new-numbers").click()
    assert len(asked) == 1 and "Ctrl+Z" in asked[0]
    assert get_program(page) == TYPED_TEXT

    answer(True)
    page.locator("#quiz-new-numbers").click()
    page.wait_for_function("t => document.querySelector('#editor .editor').gradwalkEditor.getText() !== t", arg=TYPED_TEXT)
    page.wait_for_selector('#app[data-status="ready"]')
    numbered = get_program(page)
    assert numbered.split("\n")[2] == TYPED[2] and numbered.split("\n")[:2] != TYPED[:2]
    assert page.locator("#reset-note").get_attribute("data-keeps") == "undo"
    # Its own numbers again: nothing typed is lost, so it does not ask twice.
    page.locator("#quiz-new-numbers").click()
    page.wait_for_function("t => document.querySelector('#editor .editor').gradwalkEditor.getText() !== t", arg=numbered)
    assert len(asked) == 2
    page.locator("#program").click()
    page.keyboard.press("Control+Z")
    wait_text(page, numbered)
    page.keyboard.press("Control+Z")
    wait_text(page, TYPED_TEXT)
    assert menu_label(page) == YOUR_PROGRAM
    assert ex.unexpected_errors() == []


# After two frames (the note's ResizeObserver and CodeMirror's measure have run): the note's
# box, the lines' scroller's, and each line's [text, top, bottom], px of the page.
NOTE_AND_LINES = """async () => {
  for (let i = 0; i < 2; i += 1) await new Promise((r) => requestAnimationFrame(r));
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return {note: box(document.querySelector('#reset-note')),
          scroller: box(document.querySelector('.editor .cm-scroller')),
          lines: [...document.querySelectorAll('.editor .cm-line')].map((l) => [l.textContent, ...box(l)])};
}"""


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("size", SIZES, ids=["1280x800", "1024x768"])
def test_the_reset_note_covers_no_line_of_the_program(open_explorer, size, theme):
    """A newcomer: after Reset example the note "Reset: Ctrl+Z ..." lay over the editor's last
    line ("L = t * c" half hidden). Every line is whole above the note, or scrolled out of
    the lines' view; none is under the note."""
    ex = open_with_typed_edit(open_explorer, size)
    page = ex.page
    choose_theme(page, theme)
    page.locator("#reset-example").click()
    wait_text(page, TANH)
    wait_traced(page, "t")
    assert page.locator("#reset-note").is_visible()
    seen = page.evaluate(NOTE_AND_LINES)
    note_top, (view_top, view_bottom) = seen["note"][0], seen["scroller"]
    assert [t for t, *_ in seen["lines"]] == TANH.split("\n"), seen   # (its last line is empty)
    shown = [(t, top, bottom) for t, top, bottom in seen["lines"] if bottom > view_top + 0.5 and top < view_bottom - 0.5]
    assert shown and shown[0][0] == "a = 1.0", seen
    for text, top, bottom in shown:
        assert top >= view_top - 0.5 and bottom <= view_bottom + 0.5, (text, seen)   # whole
        assert bottom <= note_top + 0.5, (text, seen)   # above the note, not under it
    last = seen["lines"][-2]   # "L = t * c": shown whole above the note, or scrolled out of view
    assert last[0] == "L = t * c" and (last[2] <= note_top + 0.5 or last[1] >= view_bottom - 0.5), seen
    page.screenshot(path=f"/tmp/shots20/u20b/reset-note-{size[0]}-{theme}.png")
    assert ex.unexpected_errors() == []
