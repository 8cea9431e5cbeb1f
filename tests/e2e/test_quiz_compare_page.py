"""A quiz with "Compare runs" on, in Chromium (issue 16, a review): the comparison table, the
"Δ" over the nodes and the detail panel showed the other run's numbers of an asked node (at
step 0 every final number, ā's 0.7864 among them: the answer, give or take the nudge). Each
unanswered question's number is "?" there in both runs, as in the node's box (quiz.js
hiddenAt, one definition); once answered, both runs' numbers show again."""
from __future__ import annotations

import torch

from page_helpers import node, wait_step
from test_projector_layout_page import go, themed
from test_quiz_tensors_page import SHOTS
from test_quiz_page import A_STEP, TANH, answer, open_quiz

NUDGED = TANH.replace("a = 1.0", "a = 1.001")


def a_bars() -> tuple[float, float]:
    """ā of both runs (a = 1.0, 1.001), by PyTorch float64."""
    out = []
    for a in (1.0, 1.001):
        x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        (torch.tanh(x * -0.5 + x) * 2.0).backward()
        out.append(float(x.grad))
    return out[0], out[1]


def shown_text(page) -> str:
    """Everything the comparison shows: its summary and table, the Δ labels on the graph."""
    return page.evaluate("""() => [document.querySelector('#diff').innerText,
        ...[...document.querySelectorAll('#graph .diff-delta')].map((t) => t.textContent)].join('\\n')""")


def test_compare_runs_keeps_the_asked_number_hidden_in_both_runs(chromium, app_url):
    before, after = a_bars()
    link = {"program": NUDGED, "diff_base": TANH, "quiz": "fanout", "step": 16}
    context, page, errors = open_quiz(chromium, app_url, link)
    try:
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        wait_step(page, A_STEP)   # held before ā's last contribution
        a_row = page.locator('#diff tr[data-node="n0"]')
        page.screenshot(path=f"{SHOTS}/quiz-compare-1280.png")
        page.set_viewport_size({"width": 1024, "height": 768})
        themed(page, "projector")
        page.screenshot(path=f"{SHOTS}/quiz-compare-1024-projector.png")
        page.set_viewport_size({"width": 1280, "height": 800})
        secrets = [f"{x:.4f}" for x in (before, after)] + [f"{x:.4f}" for x in (after - before, before - after)]
        for step in (A_STEP, 0):   # at the question, and at step 0 (where final numbers are compared)
            if step != A_STEP:
                go(page, step)
                page.wait_for_function("() => !document.querySelector('#diff').dataset.step")
            assert a_row.locator("td").nth(2).inner_text() == "? → ?"
            assert a_row.locator("td").nth(3).inner_text() == "?"
            text = shown_text(page)
            assert not any(s in text for s in secrets[:2]), text
            assert "first order" not in text   # Δa · ā would name ā
            node(page, "a").dispatch_event("click")   # the detail panel: both runs' ā as "?"
            page.wait_for_selector("#detail:not([hidden]) .diff-detail")
            detail = page.locator("#detail .diff-detail").inner_text()
            assert "gradient: ? → ? (asked in the quiz)" in detail
            assert not any(s in detail for s in secrets[:2]), detail
            node(page, "a").dispatch_event("click")   # unpinned
        # L's change is veiled too while ā is asked: ΔL / Δa is ā give or take the nudge (a
        # review read it off "L: 0.9242 → 0.925"); a's own change, the nudge, shows
        l_row = page.locator(f'#diff tr[data-node="{node(page, "L").get_attribute("data-node")}"]')
        assert l_row.get_attribute("data-delta-value") is None
        assert "0.925" not in shown_text(page)
        assert float(a_row.get_attribute("data-delta-value")) > 0
        go(page, A_STEP)
        answer(page, f"{after:.4f}")
        assert page.locator("#quiz").get_attribute("data-verdict") == "right"
        wait_step(page, A_STEP + 1)
        page.wait_for_function("() => document.querySelector('#diff tr[data-node=\"n0\"] td:nth-child(4)').textContent !== '? → ?'")
        assert a_row.locator("td").nth(2).inner_text() == f"{before:.4f} → {after:.4f}"
        assert float(l_row.get_attribute("data-delta-value")) > 0   # answered: L compares again
        go(page, 16)
        assert "first order: Δa · a\u0304 = 0.001 · 0.7864" in page.locator("#diff .diff-summary").inner_text()
        assert errors == []
    finally:
        context.close()
