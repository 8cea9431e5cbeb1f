"""Issue 9's page review items in a real browser: a preset carries its mode; forward mode on a
`# bugs:` program says the bug lab is reverse mode's; no memory chart in forward mode; the
gradient check shows a kink's reason and a tensor's elements, its verdict in view; the side
panels' type grows with the projector theme; the tangent's direction stays in view and is
named at Done; hvp mode's boxes; a bug preset says at Done its gradients are wrong on
purpose; a vector output's Done and its Jacobian; every leaf in view at step 0 and Done;
the power-iteration chart's axes."""
from __future__ import annotations

import math
import unicodedata

import pytest
from page_helpers import adjoint, choose, leave_editor, node, trace, wait_step

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace
from gradwalk.server.presets import presets

PROGRAMS = {p["id"]: p["program"] for p in presets()}
TH = math.tanh(0.5)
DL_DA = 2 * (1 - TH * TH) * 0.5  # 0.7864477329659274
KINK = "x = [[1.0, 0.0], [-1.0, 2.0]]\nW = [[0.5, -0.3], [0.8, 0.2]]\nL = sum(relu(x) * 3.0) + sum(W * W)\n"
VECTOR = "a = 1.0\nb = 2.0\nx = const([1.0, 2.0, 3.0, 4.0])\ny = x * a * b + a\n"
HVP = '# hvp: {"a": 1.0, "b": 0.5}\na = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n'
HVP_TENSOR = '# hvp: {"w": [1.0, 0.5]}\nw = [0.3, -0.2]\nx = const([1.0, 2.0])\nL = sum(tanh(w * x) * tanh(w * x))\n'


def _text(page, selector: str) -> str:
    return unicodedata.normalize("NFC", page.locator(selector).text_content())


def _end(page) -> None:
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))


def _ready(page) -> None:
    page.wait_for_selector('#app[data-status="ready"]')


def _forward(page) -> None:
    page.select_option("#mode", "forward")
    page.wait_for_selector('#modes[data-mode="forward"]')
    _ready(page)


def _open_checks(page) -> None:
    page.click("#checks > summary")
    page.wait_for_selector("#run-gradcheck", state="visible")


def _inside(page, selector: str, frame: str) -> list[str]:
    """The elements matching `selector` not wholly inside `frame`'s box on screen."""
    return page.evaluate("""([sel, frame]) => {
      const f = document.querySelector(frame).getBoundingClientRect();
      return [...document.querySelectorAll(sel)].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.left < f.left - 0.5 || r.right > f.right + 0.5 || r.top < f.top - 0.5 || r.bottom > f.bottom + 0.5;
      }).map((e) => e.closest('[data-name]')?.dataset.name ?? e.id ?? e.className); }""", [selector, frame])


def _font(page, selector: str) -> float:
    return page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)")


# ---------------------------------------------------------------- 1. a preset carries its mode


def test_a_preset_sets_its_mode_and_the_bug_lab_walks_in_reverse(explorer):
    page = explorer.page
    choose(page, "forward-dual")
    assert page.locator("#mode").input_value() == "forward"
    choose(page, "bug-overwrite")
    assert page.locator("#mode").input_value() == "reverse"
    _end(page)
    # the bug is on: a gets -0.7864 (the preset's title), and Done says it is wrong on purpose
    assert adjoint(page, "a") == pytest.approx(-DL_DA, abs=1e-12)
    narration = _text(page, "#narration")
    assert narration.startswith(
        "BUG LAB (overwrite): these gradients are wrong on purpose — the gradient check flags them. Done.")
    assert "dL/da = -0.7864" in narration
    # said once, in the narration: not again in the warning strip (session 8 review)
    assert page.locator('#warnings li[data-kind="bug_lab"]').count() == 0
    # a Hessian preset after forward-dual walks in reverse mode too (seed, then the results)
    choose(page, "forward-dual")
    choose(page, "hessian-power-iteration")
    assert page.locator("#mode").input_value() == "reverse"
    body = run_trace(PROGRAMS["hessian-power-iteration"])
    assert int(page.locator("#player").get_attribute("data-total")) == len(body["events"])
    _end(page)
    assert float(page.locator("#second-order").get_attribute("data-eigenvalue")) == pytest.approx(
        body["eigen"]["value"], abs=1e-12)
    assert page.locator("g.node[data-tangent]").count() == 0
    assert explorer.unexpected_errors() == []


def test_forward_mode_on_a_bug_program_says_the_bug_lab_is_reverse_modes(explorer):
    page = explorer.page
    choose(page, "bug-overwrite")
    assert page.locator("#mode-note").is_hidden()
    _forward(page)
    note = page.locator("#mode-note")
    assert note.is_visible()
    assert "The bug lab (overwrite) changes the backward pass, so it applies to reverse mode only" in note.inner_text()
    _end(page)
    assert float(node(page, "L").get_attribute("data-tangent")) == pytest.approx(DL_DA, abs=1e-12)
    page.select_option("#mode", "reverse")
    _ready(page)
    assert note.is_hidden()


# ---------------------------------------------------------------- 2. memory in forward mode


def test_forward_mode_shows_no_memory_chart_and_hvp_mode_counts_its_values(explorer):
    page = explorer.page
    choose(page, "linear-layer")
    ledger = page.locator("#ledger")
    body = run_trace(PROGRAMS["linear-layer"])
    assert int(ledger.get_attribute("data-peak")) == body["ledger"]["peak_activation_bytes"]
    _forward(page)
    _end(page)
    assert ledger.is_visible()
    assert ledger.get_attribute("data-mode") == "forward"
    assert page.locator("#ledger svg").is_hidden()
    assert page.locator("#ledger .ledger-note").inner_text() == (
        "Forward mode keeps no tensors for a backward pass: each tangent is used by the next op, then dropped.")
    assert ledger.get_attribute("data-live") is None and ledger.get_attribute("data-peak") is None
    # hvp mode: the backward graph's values are its forward pass; the count never goes below 0
    page.select_option("#mode", "reverse")  # a `# hvp:` line is refused in forward mode
    _ready(page)
    trace(page, HVP_TENSOR)
    hvp = run_trace(HVP_TENSOR)
    assert ledger.get_attribute("data-mode") == "reverse"
    assert int(ledger.get_attribute("data-peak")) == hvp["ledger"]["peak_activation_bytes"]
    leave_editor(page)
    lives = []
    for step in range(1, len(hvp["events"]) + 1):
        page.keyboard.press("ArrowRight")
        wait_step(page, step)
        lives.append(int(ledger.get_attribute("data-live")))
    assert min(lives) >= 0 and max(lives) == hvp["ledger"]["peak_activation_bytes"]


# ---------------------------------------------------------------- 3. the gradient check


def test_the_check_shows_the_kink_and_each_element_with_the_verdict_in_view(open_explorer):
    page = open_explorer(1024, 768).page
    trace(page, KINK)
    _open_checks(page)
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    want = run_trace(KINK, options=Options(check=True))["gradcheck"]
    verdict = page.locator(".gradcheck-text")
    assert verdict.inner_text() == (
        "Central differences with h = 1e-6: 1 of 2 leaves disagree with the backward pass: x (at a kink).")
    assert _inside(page, ".gradcheck-text", "#editor .side") == []
    assert _inside(page, ".gradcheck-text", "body") == []
    row = page.locator('#gradcheck-table tr[data-leaf="x"]').first
    assert row.get_attribute("data-ok") == "false"
    assert "✗ differs at a kink" in row.inner_text()
    why = page.locator('#gradcheck-table tr.why[data-leaf="x"]')
    assert why.inner_text().startswith("why: relu at 0 (line 3): central differences average the one-sided slopes")
    assert why.inner_text() == f"why: {want['x']['kink']}"
    # the engine's warning about it, under the rows
    assert "disagrees at a point where an op has no derivative" in page.locator(".gradcheck-warnings").inner_text()
    # x's elements: x[0, 1] (relu at 0) differs: analytic 0, numeric 1.5 (the slopes' average · 3)
    x01 = page.locator('details.elements[data-leaf="x"] tr[data-element="x[0, 1]"]')
    assert x01.get_attribute("data-ok") == "false"
    cells = x01.locator("td").all_inner_texts()
    assert cells[:3] == ["x[0, 1]", "0", "1.5"]
    assert float(cells[3]) == pytest.approx(want["x"]["max_abs_error"], rel=1e-3)
    assert page.locator('details.elements[data-leaf="x"] tr[data-ok="true"]').count() == 3
    assert page.locator('details.elements[data-leaf="x"]').get_attribute("open") is not None
    # W agrees everywhere: its elements are listed, closed
    w = page.locator('details.elements[data-leaf="W"]')
    assert w.get_attribute("open") is None
    assert "each element agrees (worst 4 of 4)" in w.inner_text()


# ---------------------------------------------------------------- 4. side panels on a projector


def test_side_panels_grow_with_the_projector_theme(open_explorer):
    page = open_explorer(1280, 800).page
    _open_checks(page)
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    plain = (_font(page, "#mode"), _font(page, "#gradcheck-table td"), _font(page, ".gradcheck-text"))
    page.locator("#view-menu summary").click()
    page.select_option("#theme", "projector")
    page.locator("#view-menu summary").click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'projector'")
    big = (_font(page, "#mode"), _font(page, "#gradcheck-table td"), _font(page, ".gradcheck-text"))
    assert all(b == pytest.approx(1.25 * p, rel=0.02) for p, b in zip(plain, big)), (plain, big)
    assert min(big) >= 17
    # A+ grows them again
    page.locator("#view-menu summary").click()
    page.click("#font-larger")
    assert _font(page, "#gradcheck-table td") > big[1] + 1


def test_the_tangent_choice_stays_in_view_and_done_names_the_direction(open_explorer):
    page = open_explorer(1024, 768).page
    choose(page, "linear-layer")
    _forward(page)
    page.select_option("#tangent-leaf", "X")
    _ready(page)
    page.select_option("#tangent-element", "3")  # X[1, 0]
    _ready(page)
    assert _inside(page, "#tangent-leaf, #tangent-direction, #tangent-element", "#editor .side") == []
    _end(page)
    body = run_trace(PROGRAMS["linear-layer"])
    want = body["grads"]["X"]["data"][1][0]  # the tangent of L along X[1, 0] is dL/dX[1, 0]
    assert float(node(page, "L").get_attribute("data-tangent")) == pytest.approx(want, abs=1e-10)
    assert _text(page, "#narration").startswith(
        f"Done. The tangent of L along ∂/∂X[1, 0] (the Jacobian-vector product) = {want:.4f}.")
    # the seeded random direction: its seed box in view, not clipped by the column's edge
    page.select_option("#tangent-direction", "random")
    _ready(page)
    assert page.locator("#tangent-seed").is_visible()
    assert _inside(page, "#tangent-direction, #tangent-seed", "#editor .side") == []
    _end(page)
    assert "along a random direction in X (seed 1)" in _text(page, "#narration")


# ---------------------------------------------------------------- 5. hvp mode's boxes


def test_hvp_mode_shows_dual_numbers_then_ds_dx(explorer):
    page = explorer.page
    trace(page, HVP)
    body = run_trace(HVP)
    assert page.locator("#mode").input_value() == "hvp"
    assert page.locator("#mode option:checked").inner_text().startswith("hvp mode")
    events = body["events"]
    seed = next(e["seq"] for e in events if e["kind"] == "seed")
    d = next(n["id"] for n in body["graph"]["nodes"] if n["label"] == "d")
    at_d = next(e for e in events if e["kind"] == "tangent" and e["node"] == d)
    leave_editor(page)
    for step in range(1, at_d["seq"] + 2):
        page.keyboard.press("ArrowRight")
    wait_step(page, at_d["seq"] + 1)
    box = page.locator(f'g.node[data-node="{d}"]')
    assert float(box.get_attribute("data-tangent")) == pytest.approx(at_d["tangent"], abs=1e-12)
    # value over "+ ḋε", the sign where the caption was (session 8 review: not a caption "ε")
    assert box.locator("g.grad-block text.caption").text_content() == ""
    assert box.locator("g.tangent-nums text").text_content() == "+ 1ε"   # ḋ = ė + ȧ = 0 + 1
    assert page.locator("#graph").get_attribute("data-hvp-phase") == "forward"
    # reverse over reverse: each box's adjoint is ∂s/∂x, captioned as such
    page.keyboard.press("End")
    wait_step(page, len(events))
    assert page.locator("#graph").get_attribute("data-hvp-phase") == "reverse"
    a = page.locator('g.node[data-name="a"]')
    assert a.locator("g.grad-block text.caption").text_content() == "∂s/∂x"
    assert a.locator("g.tangent-nums").count() == 0
    assert adjoint(page, "a") == pytest.approx(body["hvp"]["a"], abs=1e-12)
    assert seed < len(events)
    # another program, without the line: the menu says reverse mode again (the HVP text
    # is the first preset's draft now, so another preset)
    choose(page, "seed-sigmoid-net")
    assert page.locator("#mode").input_value() == "reverse"
    assert page.locator("#graph").get_attribute("data-hvp-phase") is None


# ---------------------------------------------------------------- 7. a vector output


def test_a_vector_outputs_done_and_its_jacobian(open_explorer):
    page = open_explorer(1280, 800).page
    trace(page, VECTOR)
    _forward(page)
    _end(page)
    assert _text(page, "#narration") == (
        "Done. The tangent of y along ∂/∂a (the Jacobian-vector product) = [3, 5, 7, 9]. "
        "Reverse mode (y seeded with ones, so the gradient of sum y): d(sum y)/da = 24,  d(sum y)/db = 10")
    _open_checks(page)
    page.click("#run-all-forward")
    page.wait_for_selector('.all-forward[data-status="done"]')
    table = page.locator("#jacobian .jacobian-table")
    assert table.get_attribute("data-shape") == "4x2"
    assert table.locator("th[scope=col]").all_inner_texts() == ["a", "b"]
    rows = table.locator("tr[data-row]")
    got = rows.evaluate_all("rs => rs.map(r => [r.dataset.row, ...[...r.querySelectorAll('td')].map(c => c.textContent)])")
    # ∂y_i/∂a = x_i·b + 1, ∂y_i/∂b = x_i·a
    assert got == [["y[0]", "3", "1"], ["y[1]", "5", "2"], ["y[2]", "7", "3"], ["y[3]", "9", "4"]]
    assert page.locator("#jacobian .jacobian-caption").inner_text() == "Jacobian ∂y/∂(a, b), 4×2:"
    assert _font(page, "#jacobian td") >= 14


# ---------------------------------------------------------------- 8. the camera at step 0 and Done


SCENES = ["linear-forward", "hvp", "bug-inplace", "hessian-hidden"]


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_every_leaf_is_in_view_at_step_0_and_done(open_explorer, size):
    page = open_explorer(*size).page

    def check(scene: str) -> None:
        page.wait_for_selector('#graph[data-camera="still"]')
        assert page.locator("g.node.role-leaf").count() >= 2, scene
        assert _inside(page, "g.node.role-leaf .box", "#graph") == [], f"{scene} at step 0"
        _end(page)
        page.wait_for_selector('#graph[data-camera="still"]')
        assert _inside(page, "g.node.role-leaf .box", "#graph") == [], f"{scene} at Done"

    choose(page, "linear-layer")
    _forward(page)
    check("linear-forward")
    page.select_option("#mode", "reverse")
    _ready(page)
    choose(page, "bug-inplace")
    check("bug-inplace")
    trace(page, HVP)
    check("hvp")
    choose(page, "seed-tanh-fanout")
    page.click("#toggle-program")
    choose(page, "hessian-power-iteration")
    check("hessian-hidden")


# ---------------------------------------------------------------- 9. power iteration's chart


def test_the_power_iteration_chart_has_axes(explorer):
    page = explorer.page
    choose(page, "hessian-power-iteration")
    eigen = run_trace(PROGRAMS["hessian-power-iteration"])["eigen"]
    chart = page.locator("#second-order .eigen-chart")
    x_ticks = [int(t) for t in chart.locator(".axis.x .tick text").all_text_contents() if t]
    assert x_ticks[0] >= 1 and x_ticks[-1] <= eigen["steps"] and len(x_ticks) >= 3
    assert x_ticks == sorted(x_ticks)
    y_ticks = [float(t) for t in chart.locator(".axis.y .tick text").all_text_contents()]
    finite = [v for v in eigen["estimates"] if isinstance(v, float)]
    assert y_ticks[0] <= min(finite) and y_ticks[-1] >= max(finite) * 0.95
    assert chart.locator(".axis-name").all_text_contents() == ["power-iteration step", "estimate vᵀHv"]
    points = chart.locator("polyline.eigen-line").get_attribute("points").split()
    assert len(points) == len(eigen["estimates"])


# ---------------------------------------------------------------- review 2: fixes


def test_the_check_shows_a_scalar_leafs_analytic_and_numeric_values(explorer):
    page = explorer.page
    choose(page, "bug-overwrite")
    _open_checks(page)
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    heads = page.locator("#gradcheck-table tr").first.locator("th").all_inner_texts()
    assert heads[:3] == ["leaf", "analytic", "numeric"]
    a = page.locator('#gradcheck-table tr[data-leaf="a"]').first.locator("td").all_inner_texts()
    # the engine's -0.7864 (d's edge overwritten by e's) against the true 0.7864
    assert a[:3] == ["a", "-0.7864", "0.7864"]
    assert a[3] == "1.5729" and a[-1] == "✗ differs"
    b = page.locator('#gradcheck-table tr[data-leaf="b"]').first.locator("td").all_inner_texts()
    assert b[:3] == ["b", "1.5729", "1.5729"] and b[-1] == "✓ ok"


def test_forward_mode_detail_and_label_show_the_tangent(explorer):
    page = explorer.page
    _forward(page)
    _end(page)
    dt = (1 - TH * TH) * 0.5  # ṫ = (1 - tanh²(d))·ḋ, ḋ = b + 1 = 0.5 along a
    label = node(page, "t").get_attribute("aria-label")
    assert "no gradient yet" not in label
    assert f"tangent {dt:.4f}" in label
    node(page, "t").click()
    page.wait_for_selector("#detail:not([hidden])")
    detail = _text(page, "#detail")
    assert "no gradient yet" not in detail
    assert "Tangent ṫ" in detail
    assert f"{dt:.4f}" in detail
    assert f"dual number {TH:.4f} + {dt:.4f}ε" in detail


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_hvp_done_shows_the_hv_table_and_says_hv(open_explorer, size):
    page = open_explorer(*size).page
    trace(page, HVP)
    body = run_trace(HVP)
    _end(page)
    assert _inside(page, "#second-order table.hvp", "#editor .side") == []
    assert _inside(page, "#second-order table.hvp", "body") == []
    hv = body["hvp"]
    assert _text(page, "#narration") == "Done. " + ",  ".join(
        f"(H v)_{k} = ∂s/∂{k} = {hv[k]:.4f}" for k in ("a", "b", "c"))
    assert f"{hv['a']:.4f}" == "0.0596"


WIDE = ("a = 1.0\nb = 2.0\nc = 3.0\nd = 0.5\ne = -1.0\nf = 1.5\nx = const([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])\n"
        "y = x * a * b * c + d * e * f * x\n")


@pytest.mark.parametrize("program", [VECTOR, WIDE])
def test_the_jacobian_is_in_view_at_1024x768_and_names_every_leaf(open_explorer, program):
    page = open_explorer(1024, 768).page
    trace(page, program)
    _forward(page)
    _end(page)
    _open_checks(page)
    page.click("#run-all-forward")
    page.wait_for_selector('.all-forward[data-status="done"]')
    assert _inside(page, "#jacobian .jacobian-table", "#editor .side") == []
    assert _inside(page, "#jacobian .jacobian-table", "body") == []
    # a table wider than the column scrolls sideways inside its own box, not the column
    assert page.eval_on_selector("#jacobian", "e => getComputedStyle(e).overflowX") == "auto"
    leaves = "(a, b)" if program == VECTOR else "(a, b, c, d, e, f)"
    size = "4×2" if program == VECTOR else "6×6"
    assert page.locator("#jacobian .jacobian-caption").inner_text() == f"Jacobian ∂y/∂{leaves}, {size}:"
    assert page.locator("#jacobian .jacobian-table th[scope=col]").all_inner_texts() == list(leaves[1:-1].split(", "))


def _bugs_line_in_view(page) -> bool:
    return page.evaluate("""() => {
      const s = document.querySelector('#editor .cm-scroller').getBoundingClientRect();
      const line = [...document.querySelectorAll('#editor .cm-line')].find((l) => l.textContent.startsWith('# bugs:'));
      if (!line) return false;
      const r = line.getBoundingClientRect();
      return r.top >= s.top - 0.5 && r.bottom <= s.bottom + 0.5; }""")


def test_a_bug_programs_bugs_line_is_in_view_at_step_0_and_done(open_explorer):
    page = open_explorer(1024, 768).page
    choose(page, "bug-overwrite")
    leave_editor(page)
    assert _bugs_line_in_view(page)
    # the walk's last lines, then Done: line 1 comes back into view
    total = int(page.locator("#player").get_attribute("data-total"))
    page.keyboard.press("End")
    wait_step(page, total)
    page.keyboard.press("ArrowLeft")
    wait_step(page, total - 1)
    page.keyboard.press("ArrowRight")
    wait_step(page, total)
    page.wait_for_function("""() => {
      const s = document.querySelector('#editor .cm-scroller').getBoundingClientRect();
      const line = [...document.querySelectorAll('#editor .cm-line')].find((l) => l.textContent.startsWith('# bugs:'));
      const r = line?.getBoundingClientRect();
      return r && r.top >= s.top - 0.5 && r.bottom <= s.bottom + 0.5; }""", timeout=3000)
    assert _bugs_line_in_view(page)
    page.keyboard.press("Home")
    wait_step(page, 0)
    page.wait_for_function("""() => document.querySelector('#editor .cm-scroller').scrollTop === 0""", timeout=3000)
    assert _bugs_line_in_view(page)


def test_the_hvp_option_can_be_chosen_after_a_forward_mode_error(explorer):
    page = explorer.page
    trace(page, HVP)
    page.select_option("#mode", "forward")
    page.wait_for_selector('#app[data-status="error"]')
    assert "trace in hvp mode" in page.locator(".program-error").inner_text()
    option = page.locator('#mode option[value="hvp"]')
    assert option.is_enabled() and option.get_attribute("hidden") is None
    page.select_option("#mode", "hvp")
    page.wait_for_selector('#modes[data-mode="hvp"]')
    _ready(page)
    assert page.locator("#mode").input_value() == "hvp"
    _end(page)
    assert adjoint(page, "a") == pytest.approx(run_trace(HVP)["hvp"]["a"], abs=1e-12)
    assert _text(page, "#narration").startswith("Done. (H v)_a = ∂s/∂a = 0.0596")
    # a program without the line: the entry says how to get hvp mode (issue 14: it was
    # hidden, and disabled with only its tooltip to say why)
    choose(page, "seed-sigmoid-net")
    option = page.locator('#mode option[value="hvp"]')
    assert option.inner_text() == "H v: add # hvp: line" and option.is_enabled()
