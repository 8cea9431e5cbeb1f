"""What the browser tests do to the explorer page and read from it: the data-* attributes
the page sets, never sleeps."""
from __future__ import annotations

import contextlib


def node(page, name: str):
    return page.locator(f'g.node[data-name="{name}"]')


def adjoint(page, name: str) -> float | None:
    text = node(page, name).get_attribute("data-adjoint")
    return None if text is None else float(text)


def wait_step(page, step: int) -> None:
    page.wait_for_selector(f'#player[data-step="{step}"]')


def total_steps(page) -> int:
    return int(page.locator("#player").get_attribute("data-total"))


def leave_editor(page) -> None:
    """Give the keys to the player, as a lecturer would: Escape in the editor blurs it."""
    page.locator("#program").focus()
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") != "program"


def set_group_above(page, nodes: int) -> None:
    """The page option (the "Aa" menu): graphs of more than `nodes` nodes open with their
    groups collapsed (static/js/groups.js); over a graph's size it is drawn node by node."""
    page.locator("#view-menu summary").click()
    page.locator("#group-above").fill(str(nodes))
    page.locator("#group-above").dispatch_event("change")  # traces the program shown again
    page.locator("#view-menu summary").click()
    page.wait_for_selector('#app:is([data-status="ready"], [data-status="empty"])')


def open_group_near_the_end(page, name: str, back: int) -> None:
    """Scrub to `back` steps before the end, then click the collapsed group `name` open and
    wait until its frame is drawn."""
    total = int(page.locator("#player").get_attribute("data-total"))
    page.locator("#player .scrubber").fill(str(total - back))
    wait_step(page, total - back)
    page.locator(f'g.group[data-group-name="{name}"]').click()
    page.wait_for_selector(f'g.frame[data-group-name="{name}"]')
    page.wait_for_selector('#app[data-graph="drawn"]')


def chain(lines: int) -> str:
    """`x = 1.0` then `x = x * 1.0001`: 2 * lines - 1 nodes in one long row."""
    return "x = 1.0\n" + "x = x * 1.0001\n" * (lines - 1)


# The editor is CodeMirror 6 (static/js/render/editor.js); its editable element is #program
# and its API hangs on the mount element as `gradwalkEditor` (getText, paste, view).
EDITOR = "#editor .editor"


def paste(page, text: str) -> None:
    """Replace the editor's text with `text` as a paste does: one undoable change, reported
    to the page like typing (page.fill would type it line by line)."""
    page.eval_on_selector(EDITOR, "(e, text) => e.gradwalkEditor.paste(text)", text)


set_program = paste


def get_program(page) -> str:
    """The editor's whole text (the DOM holds only the lines in view)."""
    return page.eval_on_selector(EDITOR, "e => e.gradwalkEditor.getText()")


def caret(page) -> tuple[int, int]:
    """The editor's selection as (anchor, head) offsets; equal when nothing is selected."""
    return tuple(page.eval_on_selector(
        EDITOR, "e => { const s = e.gradwalkEditor.view.state.selection.main; return [s.anchor, s.head]; }"))


def marked(page, kind: str) -> str | None:
    """The text the editor shows marked as `kind` ("step", "hover", "error"), or None."""
    return page.eval_on_selector(EDITOR, """(e, kind) => {
      const parts = [...e.querySelectorAll('.cm-content .mark-' + kind)];
      return parts.length ? parts.map((m) => m.textContent).join('') : null; }""", kind)


def wait_marked(page, kind: str, text: str | None) -> None:
    """Wait until the `kind` mark shows `text` (None: until there is none)."""
    page.wait_for_function("""([sel, kind, text]) => {
      const parts = [...document.querySelector(sel).querySelectorAll('.cm-content .mark-' + kind)];
      const got = parts.length ? parts.map((m) => m.textContent).join('') : null;
      return got === text; }""", arg=[EDITOR, kind, text])


def trace(page, text: str, status: str = "ready") -> None:
    """Paste `text`, trace it with Ctrl+Enter and wait until the page is `status`."""
    paste(page, text)
    page.locator("#program").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(f'#app[data-status="{status}"]')


def choose(page, preset: str | None = None, *, label: str | None = None, status: str | None = "ready") -> None:
    """Choose an example (by id, or by the menu's label) and wait for its trace to be
    `status` (None: whatever it is once it answers)."""
    menu = page.locator("#preset")
    if label is None:
        menu.select_option(preset)
    else:
        menu.select_option(label=label)
    page.wait_for_function("([v, s]) => document.querySelector('#preset').value === v"
                           " && (s ? document.querySelector('#app').dataset.status === s"
                           " : !['loading', 'streaming'].includes(document.querySelector('#app').dataset.status))",
                           arg=[menu.input_value(), status])


def choose_theme(page, theme: str) -> None:
    """Choose `theme` in the "Aa" menu (opened and closed again), as a lecturer would."""
    page.locator("#view-menu summary").click()
    page.select_option("#theme", theme)
    page.locator("#view-menu summary").click()


def step_forward(page, steps: int) -> None:
    """From step 0, press → `steps` times with the keys given to the player."""
    leave_editor(page)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    wait_step(page, steps)


YOUR_PROGRAM = "✎ Your program"  # the example menu's entry for the user's own program


def own_program(page, text: str, status: str = "ready") -> None:
    """Choose "✎ Your program" in the example menu, then write and trace `text` in it.
    (An empty draft opens empty with a hint, and nothing is traced: status "empty".)"""
    choose(page, label=YOUR_PROGRAM, status=None)
    trace(page, text, status)


@contextlib.contextmanager
def reopened(chromium, url: str, step: int | None = None, size=(1280, 800)):
    """`url` (a link) opened in a fresh browser context, which has no draft, only the link:
    the page once its graph is drawn (at `step`, if given) and the camera still."""
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
        if step is not None:
            wait_step(page, step)
        page.wait_for_selector('#graph[data-camera="still"]')
        yield page
    finally:
        context.close()


def new_page(chromium, contexts: list, size: tuple[int, int], touch: bool = False, timeout: int = 20_000):
    """A page in a fresh browser context at `size` (touch emulation as a phone's when
    `touch`: has_touch, is_mobile, device scale 2), its page errors in `page.errors`; the
    context is added to `contexts`, for the fixture to close."""
    extra = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2} if touch else {}
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, **extra)
    contexts.append(context)
    page = context.new_page()
    page.set_default_timeout(timeout)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def trained_and_stepped(page, preset: str, k: int) -> None:
    """Choose Train-mode example `preset`, Train it to its end, then choose iteration `k` on
    the Iteration slider (let go) and wait for its walk in the graph."""
    choose(page, preset)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    slider = page.locator("#train-iteration")
    slider.fill(str(k))
    slider.dispatch_event("change")
    page.wait_for_selector(f'#player[data-iteration="{k}"]')
    page.wait_for_selector('#app[data-status="ready"]')
