"""The notebook widget's page side in Chromium (issue 18 §2): static/dist/widget.js, the ESM
that gradwalk.show hands to anywidget, rendered twice (two views of one widget) from a fake
anywidget model holding the real widget's traits (get, set, on, off, save_changes), and the
standalone fallback (`_repr_html_`) stepping a walk in its iframe as nbconvert shows it."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

pytest.importorskip("anywidget")
import gradwalk  # noqa: E402

PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"
ORIGIN = "http://widget.test"
FAKE_MODEL = Path(__file__).parents[1] / "js" / "fixtures" / "fake-model.mjs"
SHOTS = Path(os.environ.get("GRADWALK_SHOTS", "/tmp/gradwalk-shots"))

# The host page: two views of one model, as JupyterLab shows a widget displayed twice. The
# model is the node tests' fake anywidget model (tests/js/fixtures/fake-model.mjs): `sent` is
# what went to the kernel; window.kernel(name, value) is the kernel.
HOST = """<!doctype html><html><body style="margin: 0; padding: 8px; font: 16px sans-serif">
<div id="a"></div><div id="b" style="margin-top: 8px"></div>
<script type="module">
const state = JSON.parse(document.getElementById("state").textContent);
const { fakeModel } = await import("/fake-model.mjs");
const model = fakeModel(state);
window.model = model;
window.kernel = (name, value) => model.fromKernel(name, value);
const widget = (await import("/widget.js")).default;
widget.render({ model, el: document.getElementById("a") });
widget.render({ model, el: document.getElementById("b") });
</script></body></html>"""


def open_widget(chromium, widget, width=1280, height=800):
    """A page at HOST with `widget`'s traits in its fake model; returns (page, errors)."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    state = {k: v for k, v in widget.get_state().items() if isinstance(v, (str, int, float, dict, list))}
    data = json.dumps(state).replace("<", "\\u003c")
    host = HOST.replace("<script type=\"module\">", f'<script type="application/json" id="state">{data}</script>'
                        '\n<script type="module">', 1)
    files = {f"{ORIGIN}/": (host, "text/html"), f"{ORIGIN}/widget.js": (widget._esm, "text/javascript"),
             f"{ORIGIN}/fake-model.mjs": (FAKE_MODEL.read_text(), "text/javascript")}

    def serve(route):
        body, kind = files.get(route.request.url, ("not here", "text/plain"))
        route.fulfill(status=200 if route.request.url in files else 404, body=body, content_type=kind)

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector('#a .embed[data-status="ready"]')
    page.wait_for_selector('#b .embed[data-status="ready"]')
    return page, errors


def steps_shown(page) -> tuple[str, str]:
    return tuple(page.locator(f"#{v} .embed").get_attribute("data-step") for v in "ab")


def test_two_views_of_one_widget_step_together_and_tell_the_kernel(chromium):
    w = gradwalk.show(PROGRAM)
    page, errors = open_widget(chromium, w)
    try:
        assert steps_shown(page) == ("0", "0")
        assert page.locator("#a svg g.node").count() == len(json.loads(w._trace)["graph"]["nodes"])
        page.locator("#a button.forward").click()
        page.locator("#a button.forward").click()
        assert steps_shown(page) == ("2", "2")
        assert page.evaluate("model.sent") == [{"step": 1}, {"step": 2}]
        page.evaluate("kernel('step', 6)")   # a cell's w.step = 6
        assert steps_shown(page) == ("6", "6")
        assert page.locator("#b .counter").inner_text() == f"step 6 / {w.steps}"
        event = json.loads(w._trace)["events"][5]   # the event step 6 has just applied
        node = next(n for n in json.loads(w._trace)["graph"]["nodes"] if n["id"] == event["node"])
        assert node["label"].split(" ")[0] in page.locator("#b .narration").inner_text()
        page.evaluate("kernel('theme', 'projector')")   # a cell's w.theme = "projector"
        assert [page.locator(f"#{v}").get_attribute("data-theme") for v in "ab"] == ["projector"] * 2
        page.locator("#b .embed").focus()
        page.keyboard.press("End")
        assert steps_shown(page) == (str(w.steps), str(w.steps))
        assert page.locator("#a .embed").get_attribute("data-phase") == "done"
        assert page.evaluate("model.sent").pop() == {"step": w.steps}
        assert errors == []
    finally:
        page.context.close()


def test_the_kernels_new_walk_and_its_refusal_show_in_every_view(chromium):
    w = gradwalk.show(PROGRAM)
    page, errors = open_widget(chromium, w)
    try:
        page.locator("#a select.widget-mode").select_option("forward")
        assert page.evaluate("model.sent") == [{"mode": "forward"}]
        page.locator("#a summary").click()
        assert page.locator("#a textarea").input_value() == PROGRAM
        page.locator("#a textarea").fill("x = 3.0\nL = x * x\n")
        page.locator("#a .widget-program button").click()
        assert page.evaluate("model.sent").pop() == {"program": "x = 3.0\nL = x * x\n"}
        page.evaluate("kernel('program', $0)".replace("$0", json.dumps(PROGRAM)))   # back
        w.mode = "forward"   # the kernel's answer: the forward walk
        page.evaluate("t => kernel('_trace', t)", w._trace)
        assert page.locator("#b svg g.node").count() == len(json.loads(w._trace)["graph"]["nodes"])
        assert page.locator("#b select.widget-mode").input_value() == "forward"
        w.program = "L = q * 2\n"   # refused: the kernel sends the error, its trace stays
        page.evaluate("e => kernel('error', e)", w.error)
        for v in "ab":
            assert page.locator(f"#{v} .embed").get_attribute("data-status") == "error"
            assert page.locator(f"#{v} .narration").inner_text() == (
                "Not traced (line 1, column 5): unknown name: `q` is not defined. The faded graph is the last good walk.")
        assert errors == []
    finally:
        page.context.close()


def test_a_refused_program_keeps_the_last_walk_faded_and_its_step(chromium):
    """`w.program = "a = ("` after a walk: the kernel keeps that walk (w.steps, w._trace) and
    says where the new one broke (w.error); every view keeps drawing it at w.step, faded and
    not stepped, the located error its narration, as the explorer keeps the last good trace.
    Fixing the program walks again."""
    w = gradwalk.show(PROGRAM, step=6)
    page, errors = open_widget(chromium, w)
    nodes = len(json.loads(w._trace)["graph"]["nodes"])
    try:
        w.program = "a = ("
        assert w.steps > 6 and w.step == 6 and w.error.startswith("Not traced (line 1, column ")
        page.evaluate("e => kernel('error', e)", w.error)   # all that changed in the model
        for v in "ab":
            root = page.locator(f"#{v} .embed")
            assert root.get_attribute("data-status") == "error"
            assert root.get_attribute("data-step") == "6"
            assert page.locator(f"#{v} svg#graph g.node").count() == nodes
            assert page.locator(f"#{v} svg#graph").evaluate("s => getComputedStyle(s).opacity") == "0.35"
            assert page.locator(f"#{v} .graph-message").is_hidden()
            said = page.locator(f"#{v} .narration").inner_text()
            assert said.startswith(w.error) and said.endswith(" The faded graph is the last good walk."), said
            assert page.locator(f"#{v} .counter").inner_text() == "no steps"
            assert page.locator(f"#{v} .phase").inner_text() == "error"
            assert page.locator(f"#{v} button.forward").is_disabled()
        page.locator("#a .embed").focus()
        page.keyboard.press("End")   # not stepped
        assert steps_shown(page) == ("6", "6") and page.evaluate("model.sent") == []
        page.evaluate("kernel('step', 3)")   # a cell's w.step = 3: the faded walk follows
        assert steps_shown(page) == ("3", "3")
        w.program = PROGRAM   # fixed: the same walk, stepped again
        page.evaluate("e => kernel('error', e)", w.error)
        for v in "ab":
            assert page.locator(f"#{v} .embed").get_attribute("data-status") == "ready"
            assert page.locator(f"#{v} .counter").inner_text() == f"step 3 / {w.steps}"
            assert page.locator(f"#{v} svg#graph").evaluate("s => getComputedStyle(s).opacity") == "1"
        page.locator("#a button.forward").click()
        assert steps_shown(page) == ("4", "4")
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("width, height, theme", [(1280, 800, "auto"), (1024, 768, "auto"), (1280, 800, "projector")])
def test_widget_screenshots(chromium, width, height, theme):
    w = gradwalk.show(PROGRAM, theme=theme, step=9)
    page, errors = open_widget(chromium, w, width, height)
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"widget-{width}x{height}-{theme}.png"))
        assert steps_shown(page) == ("9", "9")
        assert errors == []
    finally:
        page.context.close()


# The phase pill of each view: its text, the px its text needs and has, its box.
PILLS = """() => ['a', 'b'].map((v) => { const p = document.querySelector('#' + v).shadowRoot.querySelector('.phase');
  const r = p.getBoundingClientRect(), host = document.querySelector('#' + v).getBoundingClientRect();
  return {text: p.textContent, needs: p.scrollWidth, has: p.clientWidth, right: r.right, inside: host.right}; })"""


@pytest.mark.parametrize("width, height", [(1024, 768), (1280, 800)])
@pytest.mark.parametrize("mode", ["reverse", "train"])
def test_the_phase_pill_is_whole_in_the_projector_theme(chromium, width, height, mode):
    """At 1024x768 in the projector theme the player's phase pill read "back…" (99 px of the
    184 its text needs): the explorer's rule lets it ellipsise first. In the widget the
    scrubber gives way instead; at every step the pill's text is whole, inside the widget."""
    w = (gradwalk.show(PROGRAM, theme="projector") if mode == "reverse" else
         gradwalk.show(LINE, mode="train", train_steps=30, lr=0.1, iteration=4, theme="projector"))
    page, errors = open_widget(chromium, w, width, height)
    try:
        texts = set()
        for k in range(w.steps + 1):
            page.evaluate(f"kernel('step', {k})")
            for pill in page.evaluate(PILLS):
                assert pill["needs"] <= pill["has"] and pill["right"] <= pill["inside"], (k, pill)
                texts.add(pill["text"])
        assert {"ready", "forward pass", "backward pass", "done"} <= texts, texts
        scrubber = page.locator("#a .scrubber").bounding_box()
        assert scrubber["width"] >= 60, scrubber   # it gave way, still a bar to drag
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.evaluate(f"kernel('step', {next(k for k, e in enumerate(json.loads(w._trace)['events']) if e['kind'] == 'accumulate') + 1})")
        page.screenshot(path=str(SHOTS / f"widget-pill-{mode}-{width}x{height}-projector.png"))
        assert errors == []
    finally:
        page.context.close()


def test_the_fallback_steps_the_walk_in_its_iframe(chromium):
    w = gradwalk.show(PROGRAM, step=6)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.set_content(f"<!doctype html><body>{w._repr_html_()}</body>")
        frame = page.frame_locator("iframe")
        frame.locator('#embed[data-status="ready"]').wait_for()
        assert frame.locator("#embed").get_attribute("data-step") == "6"
        frame.locator("button.forward").click()
        assert frame.locator("#embed").get_attribute("data-step") == "7"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "widget-fallback-1280x800.png"))
    finally:
        context.close()


HVP = '# hvp: {"a": 1.0, "b": 0.5}\n' + PROGRAM
LINE = "w = 0.5\nb = -0.2\nx = const(1.5)\ny = const(2.0)\nL = (w * x + b - y) ** 2\n"


def test_train_mode_shows_the_loss_curve_and_steps_the_recorded_iteration(chromium):
    w = gradwalk.show(LINE, mode="train", train_steps=30, lr=0.1, iteration=4)
    page, errors = open_widget(chromium, w)
    try:
        curve = page.locator("#a .widget-loss svg.loss-curve")
        assert curve.is_visible() and curve.get_attribute("data-points") == "30"
        assert page.locator("#a .widget-train").is_visible()
        assert page.locator("#a .widget-train input[data-field='iteration']").input_value() == "4"
        assert page.locator("#a select.widget-mode").input_value() == "train"
        page.locator("#a button.forward").click()
        assert page.locator("#a .narration").inner_text().startswith("Iteration 4: ")
        kinds = [e["kind"] for e in json.loads(w._trace)["events"]]
        page.locator("#a .embed").focus()
        page.keyboard.press("End")
        assert steps_shown(page) == (str(len(kinds)), str(len(kinds)))
        # a new setting from the view goes to the kernel in one message
        page.locator("#b .widget-train input[data-field='lr']").fill("0.5")
        page.locator("#b .widget-train input[data-field='lr']").dispatch_event("change")
        assert page.evaluate("model.sent").pop() == {"lr": 0.5}
        # the reverse walk: no curve, no train row
        page.locator("#a select.widget-mode").select_option("reverse")
        w.mode = "reverse"
        page.evaluate("t => { kernel('mode', 'reverse'); kernel('_trace', t); }", w._trace)
        assert not page.locator("#a .widget-loss").is_visible()
        assert not page.locator("#a .widget-train").is_visible()
        assert errors == []
    finally:
        page.context.close()


def test_hvp_mode_is_offered_with_the_line_and_narrates_the_second_walk(chromium):
    w = gradwalk.show(HVP)
    assert w.mode == "hvp"
    page, errors = open_widget(chromium, w)
    try:
        option = page.locator("#a select.widget-mode option[value='hvp']")
        assert option.get_attribute("disabled") is None
        assert page.locator("#a select.widget-mode").input_value() == "hvp"
        page.evaluate(f"kernel('step', {w.steps - 1})")   # the last accumulate: (H v)_b whole
        text = page.locator("#a .narration").inner_text()
        assert "(H v)_b" in text and text.endswith("= -0.6011"), text
        assert errors == []
    finally:
        page.context.close()
    plain = gradwalk.show(PROGRAM)
    page, errors = open_widget(chromium, plain)
    try:
        assert page.locator("#a select.widget-mode option[value='hvp']").get_attribute("disabled") == ""
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("width, height, theme", [(1280, 800, "auto"), (1024, 768, "projector")])
def test_train_mode_screenshots(chromium, width, height, theme):
    w = gradwalk.show(LINE, mode="train", train_steps=30, lr=0.1, iteration=4, theme=theme, step=9)
    page, errors = open_widget(chromium, w, width, height)
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"widget-train-{width}x{height}-{theme}.png"))
        assert steps_shown(page) == ("9", "9") and errors == []
    finally:
        page.context.close()


def test_the_train_fallback_draws_the_loss_curve_beside_the_iteration(chromium):
    """Without the widget (nbconvert, a saved notebook) train mode's text/html had the walk
    and no loss curve: the curve of the run's losses, marked at the iteration stepped."""
    w = gradwalk.show(LINE, mode="train", train_steps=30, lr=0.1, iteration=4, step=2)
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        page.set_content(f"<!doctype html><body>{w._repr_html_()}</body>")
        frame = page.frame_locator("iframe")
        frame.locator('#embed[data-status="ready"]').wait_for()
        curve = frame.locator("#loss-curve")
        assert curve.get_attribute("data-points") == "30" and curve.is_visible()
        losses = w.losses
        label = curve.get_attribute("aria-label")   # "Loss after 30 iterations: 7.54e-27"
        assert label.startswith("Loss after 30 iterations: ")
        assert math.isclose(float(label.rsplit(" ", 1)[1]), losses[-1], rel_tol=1e-2), (label, losses[-1])
        # the marker at iteration 4 of an axis 0..29, the iteration the walk steps
        x = frame.locator("#loss-curve").evaluate("""svg => {
            const c = svg.querySelector('.loss-cursor'), ticks = [...svg.querySelectorAll('.axis.x .tick')];
            const mid = (e) => { const r = e.getBoundingClientRect(); return r.left + r.width / 2; };
            const at = (v) => mid(ticks.find(t => t.textContent === v).querySelector('line'));
            return [getComputedStyle(c).display, mid(c), at('0'), at('10')];
        }""")
        assert x[0] != "none" and math.isclose(x[1], x[2] + 0.4 * (x[3] - x[2]), abs_tol=1.5), x
        assert frame.locator("#embed").get_attribute("data-iteration") == "4"
        assert frame.locator(".narration").inner_text().startswith("Iteration 4: ")
        # the zero_grad step shows the zeros it sets, as in the widget (train.js steppable)
        kinds = [e["kind"] for e in json.loads(w._trace)["events"]]
        frame.locator("#embed").focus()
        for _ in range(kinds.index("zero_grad") + 1 - 2):
            frame.locator("button.forward").click()
        assert frame.locator('g.node[data-name="w"]').get_attribute("data-adjoint") == "0"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "widget-train-fallback-1280x800.png"))
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["projector", "auto"])
def test_train_mode_at_1024x768_draws_the_node_numbers_readable(chromium, theme):
    """At 1024x768 the curve beside the graph left it 654 px: the graph fitted whole at 0.53 and
    its numbers (9.5 px, under 10) were not drawn. The curve goes beside the train settings and
    the whole graph is shown only where its numbers are drawn."""
    w = gradwalk.show(LINE, mode="train", train_steps=30, lr=0.1, iteration=4, theme=theme, step=9)
    page, errors = open_widget(chromium, w, 1024, 768)
    try:
        loss = w.losses[4]   # step 9 has evaluated L: iteration 4's loss, 0.0004735
        for v in "ab":
            svg = page.locator(f"#{v} svg#graph")
            assert svg.get_attribute("data-numbers") == "shown", v
            assert svg.get_attribute("data-whole") == "true", v   # all of it in view
            value = page.locator(f'#{v} g.node[data-name="L"] g.nums text').first
            assert value.is_visible()
            assert math.isclose(float(value.text_content()), loss, rel_tol=1e-3), value.text_content()
            # on screen at 14 px or more (the line box of an 18 px font at scale k is 18·k·1.2)
            assert value.bounding_box()["height"] >= 14, (v, value.bounding_box())
            assert float(svg.get_attribute("data-scale")) * 18 >= 14, svg.get_attribute("data-scale")
            # the curve still there, beside the settings, off the graph
            curve, graph = page.locator(f"#{v} .widget-loss svg.loss-curve"), svg.bounding_box()
            box = curve.bounding_box()
            assert curve.is_visible() and box["y"] >= graph["y"] + graph["height"], (box, graph)
            assert box["height"] >= 80, box
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"widget-train-numbers-1024x768-{theme}.png"))
        assert errors == []
    finally:
        page.context.close()


# The KaTeX faces the document has loaded (a face is loaded when text first uses it).
FACES = """async () => { await document.fonts.ready;
  return [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family)
    .filter((f) => f.startsWith('KaTeX')).sort(); }"""


@pytest.mark.parametrize("width, height, theme", [(1280, 800, "auto"), (1024, 768, "projector")])
def test_the_widgets_narration_is_typeset_with_its_own_fonts(chromium, width, height, theme):
    """Issue 18 §3 in the notebook: the widget narrated in plain text while the page and the
    export typeset it. At a backward step each view's line is set by KaTeX (bars over the
    adjoints) with KaTeX's fonts from the widget's own stylesheet (data: URLs: the host
    serves nothing else), and the plain narration stays the line's text for screen readers."""
    w = gradwalk.show(PROGRAM, theme=theme)
    events = json.loads(w._trace)["events"]
    k = next(i for i, e in enumerate(events) if e["kind"] == "accumulate" and "tanh" in e["narration"])
    w.step = k + 1   # the step that applies events[k]: c̄ into a * b through tanh
    page, errors = open_widget(chromium, w, width, height)
    try:
        assert steps_shown(page) == (str(k + 1), str(k + 1))
        said = events[k]["narration"]
        assert "+=" in said and "\u0304" in said, said
        for v in "ab":
            line = page.locator(f"#{v} .narration")
            assert line.get_attribute("data-typeset") == "true"
            assert line.locator(".narration-plain").text_content() == said
            assert line.inner_text() == said   # what a screen reader and a copy read
            shown = line.locator(".narration-tex")
            assert shown.get_attribute("aria-hidden") == "true"
            assert shown.locator(".katex .katex-html").count() == 1
            assert shown.locator(".katex-accent .accent-body").count() >= 1   # the bars
        assert {"KaTeX_Main", "KaTeX_Math"} <= set(page.evaluate(FACES))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#a .embed").screenshot(path=str(SHOTS / f"widget-typeset-{width}x{height}-{theme}.png"))
        # the program box open: the line is still whole (the graph's row gave way to 55% only,
        # and the line got 11 px of its 38 at 1280x800)
        page.locator("#a summary").click()
        line = page.locator("#a .narration")
        assert line.evaluate("(p) => p.clientHeight >= p.scrollHeight && p.clientHeight > 30")
        assert errors == []
    finally:
        page.context.close()
