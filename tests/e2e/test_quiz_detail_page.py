"""The detail panel keeps the quiz's secrets (the review of s7): on the tanh fan-out example,
quiz "every adjoint", the walk stops at step 8 asking t̄; clicking t showed step 11's rule
"d̄ += (1−t²)·t̄ = 0.7864 · 2 = 1.5729", the asked t̄ and the next question's d̄. While a
quiz is on, a rule of a step not yet shown reads "? · ? = ?" (quiz.js hiddenAt,
numbersHidden), the asked number is "?" as in its node's box, and once answered the
rule's numbers show."""
from __future__ import annotations

import re

import pytest

from page_helpers import leave_editor, node, wait_step
from test_projector_layout_page import themed
from test_quiz_page import answer, open_quiz

T_STEP = 8   # events[8] is t̄'s contribution from L: the walk stops before it
# numbers the walk has not shown at step 8: t̄ = 2 (also L's rule's c), d̄ = 1.5729, 1 - t² =
# 0.7864 (ā too), c̄ = 0.4621 comes from t's shown value, so only its rule is checked
UNREVEALED = {"2", "1.5729", "0.7864", "-0.7864", "-0.5"}


def panel_text(page) -> str:
    """What the panel says, to the eye and to a screen reader: its text and its aria-labels,
    without the "(step 11)" notes that say when a rule comes. A typeset rule's text is its
    aria-label (its KaTeX boxes, aria-hidden, set the ² of t² as a separate "2")."""
    panel = page.locator("#detail")
    labels = panel.locator("[aria-label]").evaluate_all("els => els.map((e) => e.getAttribute('aria-label'))")
    shown = panel.evaluate("""e => { const c = e.cloneNode(true);
        c.querySelectorAll('[aria-hidden="true"]').forEach((x) => x.remove()); return c.textContent; }""")
    return re.sub(r"\(step \d+\)", "", " ".join([shown, *labels]))


def numbers(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", text))


def rules(page) -> list[str]:
    return page.locator("#detail .detail-rules .typeset").evaluate_all("els => els.map((e) => e.getAttribute('aria-label'))")


def pin(page, name: str) -> None:
    node(page, name).click()
    page.wait_for_selector(f'#detail[data-node="{node(page, name).get_attribute("data-node")}"]')


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=["1024x768", "1280x800"])
def test_a_quiz_keeps_unrevealed_numbers_out_of_the_detail_panel(chromium, app_url, size, tmp_path):
    context, page, errors = open_quiz(chromium, app_url, {"quiz": "adjoints"}, size=size)
    try:
        themed(page)
        leave_editor(page)
        page.keyboard.press("End")   # runs on to the first question and stops there
        wait_step(page, T_STEP)
        assert page.locator("#quiz").get_attribute("data-asking") == node(page, "t").get_attribute("data-node")

        pin(page, "t")   # the asked node
        text = panel_text(page)
        assert numbers(text) & UNREVEALED == set(), text
        assert rules(page) == ["t = tanh(d), so d\u0304 += (1 - t²) · t\u0304 = ? · ? = ?"]
        assert page.locator("#detail .detail-col.grad .quiz-mark").inner_text() == "?"   # as in its box
        assert "0.4621" in text   # its value, shown since the forward pass
        page.screenshot(path=tmp_path / f"quiz-detail-t-{size[0]}.png")

        pin(page, "L")   # downstream: its rule sends t̄
        text = panel_text(page)
        assert numbers(text) & UNREVEALED == set(), text
        assert rules(page) == ["L = t * c, so t\u0304 += c · L\u0304 = ? · ? = ?",
                               "L = t * c, so c\u0304 += t · L\u0304 = ? · ? = ?"]

        answer(page, "2")
        assert page.locator("#quiz").get_attribute("data-verdict") == "right"
        wait_step(page, T_STEP + 1)   # t̄ revealed; the next question (c̄) waits
        page.wait_for_function("() => document.querySelector('#detail .typeset').getAttribute('aria-label').endsWith('= 2 · 1 = 2')")
        assert rules(page) == ["L = t * c, so t\u0304 += c · L\u0304 = 2 · 1 = 2",
                               "L = t * c, so c\u0304 += t · L\u0304 = ? · ? = ?"]   # c̄ is asked next
        page.screenshot(path=tmp_path / f"quiz-detail-L-{size[0]}.png")
        pin(page, "t")
        assert "= ? · ? = ?" in rules(page)[0]   # d̄'s step is still ahead
        assert page.locator("#detail .detail-col.grad td").first.inner_text() == "2"   # t̄, answered
        assert errors == []
    finally:
        context.close()
