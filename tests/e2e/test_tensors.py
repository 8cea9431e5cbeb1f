"""Tensors a student can read (issue 7, §4), in a real browser: heat maps on the nodes with
their numbers in data-* attributes, shapes on the edges, the detail panel's tables (with the
full numbers fetched for a value over the inline limit) and the first non-finite number."""
from __future__ import annotations

import pytest
from page_helpers import choose, leave_editor, node, step_forward, trace

LINEAR = ("X = [[1.0, -2.0, 0.5], [0.3, 0.8, -1.2], [-0.7, 0.1, 2.0], [1.5, -0.4, 0.2]]\n"
          "W = [[0.5, -0.3], [0.2, 0.8], [-0.6, 0.4]]\nb = [0.1, -0.2]\n"
          "L = sum(tanh(X @ W + b))\n")
BIG = ("X = [" + ", ".join("[" + ", ".join(f"{(i * 10 + j) % 7 - 3}.0" for j in range(10)) + "]"
                          for i in range(10)) + "]\nL = sum(tanh(X * 0.1))\n")


def cells(page, name: str, kind: str) -> dict[tuple[int, int], float]:
    return {(int(i), int(j)): float(v) for i, j, v in node(page, name).locator(
        f"g.{kind}-block g.heat rect.cell").evaluate_all(
        "els => els.map(e => [e.dataset.i, e.dataset.j, e.dataset.v])")}


def test_heat_maps_and_edge_shapes(explorer):
    page = explorer.page
    trace(page, LINEAR)
    leave_editor(page)
    # Before the forward pass reaches X @ W its heat map is empty.
    assert cells(page, "X @ W", "value") == {}
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-step="16"]')
    value = cells(page, "X @ W", "value")
    assert len(value) == 8
    assert value[(0, 0)] == pytest.approx(-0.2) and value[(0, 1)] == pytest.approx(-1.7)
    assert value[(3, 1)] == pytest.approx(-0.69)
    grad = cells(page, "b", "grad")
    assert grad == {(0, 0): pytest.approx(2.2104, abs=1e-4), (0, 1): pytest.approx(2.0567, abs=1e-4)}
    heat = node(page, "X @ W").locator("g.value-block g.heat")
    assert heat.get_attribute("data-shape") == "4,2" and heat.get_attribute("data-complete") == "true"
    # Colours: the diverging scale, -1.7 (the largest |x|) red, 1.09 blue.
    fills = dict(node(page, "X @ W").locator("g.value-block rect.cell").evaluate_all(
        "els => els.map(e => [e.dataset.i + ',' + e.dataset.j, getComputedStyle(e).fill])"))
    red = [int(c) for c in fills["0,1"][4:-1].split(",")]
    blue = [int(c) for c in fills["2,1"][4:-1].split(",")]
    assert red[0] > red[2] and blue[2] > blue[0]
    shapes = page.locator("g.edge-shape").evaluate_all("els => els.map(e => e.dataset.shape)")
    assert sorted(shapes) == ["(2,)", "(3,2)", "(4,2)", "(4,2)", "(4,2)", "(4,3)"]
    assert explorer.unexpected_errors() == []


def test_detail_panel_tables_and_rules(explorer):
    page = explorer.page
    trace(page, LINEAR)
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_selector('#player[data-step="16"]')
    node(page, "X @ W").click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    assert panel.get_attribute("data-node") == "n3"
    value = panel.locator("table.value td").evaluate_all("els => els.map(e => e.textContent)")
    # one precision a table: 4 significant digits each (format.js formatCells; a review read
    # -0.0022 beside -0.000206 in one table)
    assert value == ["-0.2000", "-1.700", "1.030", "0.07000", "-1.530", "1.090", "0.5500", "-0.6900"]
    grad = panel.locator("table.grad td").evaluate_all("els => els.map(e => e.textContent)")
    assert grad[:2] == ["0.9901", "0.08561"] and len(grad) == 8
    # each rule typeset (test_typeset_page.py), its plain text the aria-label
    rules = panel.locator(".detail-rules li .rule .typeset").evaluate_all(
        "els => els.map((e) => e.getAttribute('aria-label'))")
    assert any(r.endswith("X̄ += ∂L/∂(X @ W) @ Wᵀ, shapes 4×3 = 4×2 @ 2×3") for r in rules)
    # The bias's unbroadcast: its axes and shapes, said once, by the rule (issue 14: the
    # panel's own " · summed over axis 0: (4,2) → (2,)" after it said them twice)
    node(page, "X @ W + b").dispatch_event("click")
    page.wait_for_selector('#detail[data-node="n4"]')
    b_rule = panel.locator(".detail-rules li").filter(has_text="b’s shape")
    said = b_rule.locator(".typeset").get_attribute("aria-label")
    assert said.endswith(", shapes 4×2 = 4×2 ⊙ 4×2, summed over axis 0 back to b's shape (2-vector) = [2.2104, 2.0567]"), said
    assert b_rule.inner_text().count("summed") == 1
    assert panel.locator(".unbroadcast").count() == 0
    # Stepping back, the gradient is not known yet; the panel follows the step.
    page.locator("#narration").click()
    page.keyboard.press("Home")
    page.wait_for_selector('#player[data-step="0"]')
    assert panel.locator("table").count() == 0
    assert "not evaluated yet" in panel.inner_text()
    panel.locator("button.close").click()
    assert panel.is_hidden()
    assert explorer.unexpected_errors() == []


def test_a_big_value_is_fetched_in_full(explorer):
    page = explorer.page
    trace(page, BIG)
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_selector('#app[data-status="ready"]')
    x = node(page, "X")
    # 100 numbers travelled as a summary: the heat map draws its min, max and mean, and says so.
    heat = x.locator("g.value-block g.heat")
    assert heat.get_attribute("data-complete") == "false"
    stats = heat.locator("rect.cell.stat").evaluate_all("els => els.map(e => Number(e.dataset.v))")
    numbers = [(i * 10 + j) % 7 - 3 for i in range(10) for j in range(10)]
    assert stats == [-3, 3, pytest.approx(sum(numbers) / 100)]
    assert heat.locator("text.summary-note").text_content() == "summary"
    with page.expect_response("**/api/trace/node") as answer:
        x.click()
    assert answer.value.status == 200
    page.wait_for_selector('#detail[data-full="true"]')
    value = page.locator("#detail table.value td")
    assert value.count() == 100
    assert value.nth(13).get_attribute("data-v") == "3"   # row 1, col 3: (13 % 7) - 3
    grad = page.locator("#detail table.grad td")
    assert grad.count() == 100
    assert float(grad.nth(0).get_attribute("data-v")) == pytest.approx(0.1 * (1 - 0.29131261 ** 2),
                                                                          abs=1e-6)
    assert explorer.unexpected_errors() == []


def test_first_non_finite_is_highlighted_with_why(explorer):
    page = explorer.page
    trace(page, "x = [1.0, -2.0, 4.0]\ny = log(x)\nL = sum(y * x)\n")
    leave_editor(page)
    note = page.locator(".nonfinite-note")
    assert note.is_hidden()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")   # y = log(x) evaluated
    page.wait_for_selector('#player[data-step="2"]')
    assert "non-finite" in node(page, "y").get_attribute("class")
    # a new sentence after the full stop: capitalised
    assert note.inner_text() == "⚠ y: first non-finite value. Log of a negative number (NaN)"
    nan = node(page, "y").locator("g.value-block rect.cell.nonfinite")
    assert nan.count() == 1 and nan.get_attribute("data-v") == "NaN"
    page.keyboard.press("Home")
    page.wait_for_selector('#player[data-step="0"]')
    assert note.is_hidden()
    assert "non-finite" not in node(page, "y").get_attribute("class")
    assert explorer.unexpected_errors() == []


MISMATCH = "X = randn(4, 3, seed=0)\nW = randn(2, 3, seed=1)\nY = X @ W\nL = sum(Y)\n"


def test_a_failed_trace_fades_the_detail_panel_and_hides_the_ledger(explorer):
    # review of issue 7: the panel and the ledger stayed as they were, with the last good data
    page = explorer.page
    choose(page, "ledger-mlp")
    leave_editor(page)
    page.keyboard.press("End")
    ledger = page.locator("#ledger")
    assert ledger.is_visible()
    node(page, "L").click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    opacity = "els => els.map(e => getComputedStyle(e).opacity)"
    assert set(panel.locator(":scope > *").evaluate_all(opacity)) == {"1"}
    trace(page, MISMATCH, status="error")
    assert set(panel.locator(":scope > *").evaluate_all(opacity)) == {"0.4"}
    assert ledger.is_hidden()
    trace(page, LINEAR)
    assert ledger.is_visible()   # the new trace has its own ledger
    assert explorer.unexpected_errors() == []


def test_escape_closes_the_detail_panel_but_not_from_the_editor(explorer):
    page = explorer.page
    trace(page, LINEAR)
    leave_editor(page)
    page.keyboard.press("End")
    node(page, "X @ W").click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    page.locator("#program").focus()
    page.keyboard.press("Escape")     # leaves the editor only
    assert panel.is_visible()
    page.keyboard.press("Escape")     # now closes the panel, as its × does
    panel.wait_for(state="hidden")
    node(page, "X @ W").click()       # the node was unpinned: one click shows it again
    panel.wait_for(state="visible")
    assert explorer.unexpected_errors() == []


def test_an_empty_slice_is_a_located_shape_error_on_the_page(explorer):
    # review of issue 7: HTTP 500, then "Cannot convert undefined or null to object"
    page = explorer.page
    trace(page, "x = randn(2, 3, seed=0)\ny = x[0:0]\nL = mse(y, y)\n", status="error")
    error = page.locator(".program-error")
    assert "Line 2, column 5" in error.inner_text() and "shape (0, 3)" in error.inner_text()
    assert explorer.unexpected_errors() == []


def _graph_height(page) -> float:
    return page.locator(".graph-wrap").bounding_box()["height"]


def test_at_1024x768_the_graph_keeps_320_px_and_the_player_one_row(open_explorer):
    # review of issue 7: the player wrapped (Speed clipped at the bottom) and the side panel
    # pushed the graph down to ~280 px, ~200 px with an error shown
    explorer = open_explorer(1024, 768)
    page = explorer.page
    choose(page, "attention-head")
    leave_editor(page)
    step_forward(page, 3)
    assert page.locator("#editor").is_visible()
    assert _graph_height(page) >= 320
    boxes = {s: page.locator(s).bounding_box() for s in
             ("#player .btn.reset", "#player .counter", "#player .speed", "#zoom-fit")}
    tops = [b["y"] for b in boxes.values()]
    assert max(tops) - min(tops) < 12, boxes          # one row
    speed = boxes["#player .speed"]
    assert speed["y"] + speed["height"] <= 768 and speed["x"] + speed["width"] <= 1024
    assert page.locator("#player .speed").get_attribute("aria-label") == "Speed"
    trace(page, MISMATCH, status="error")
    assert page.locator(".program-error").is_visible()
    assert _graph_height(page) >= 320
    assert page.evaluate("document.documentElement.scrollHeight") <= 768
    assert explorer.unexpected_errors() == []
