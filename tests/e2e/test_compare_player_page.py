"""The player stays whole on screen with "Compare runs" on (issue 14 §5, a review), in
Chromium at 1024x768 and 1280x800 in the projector theme and at 1280x800 in the light one.
The comparison's table made the program's panel taller, and the page grew past the window:
the tanh fan-out example's quiz ("every adjoint") was 809 px tall at 768 and its Back /
Play / Next buttons fell below the screen; mlp-classifier's walk at 1024 had its buttons
half cut. The page is one screen tall: the side column scrolls within the
panel, the graph gives up room, never the player. Checked at every step of both walks, and
at each question before and after an answer (its feedback open). The quiz's answers are
PyTorch float64's adjoints."""
from __future__ import annotations

import pytest
import torch

from page_helpers import choose, leave_editor, node, trace, wait_step
from test_projector_layout_page import themed, total
from test_quiz_page import TANH, answer

NUDGED = TANH.replace("a = 1.0", "a = 1.001")
MLP_SEED = ("W1 = randn(4, 8, seed=1)", "W1 = randn(4, 8, seed=7)")
# (size, theme, A+ presses). Before the fix the quiz's page was 809 px tall at 1024x768 and 805
# at 1280x800 in the light theme from step 0, mlp-classifier's 803 px at 1024x768 at step 13.
# With the text larger (A+: 115%, 130%) the side column alone cannot give enough room back:
# the graph has to give up its floor too.
CASES = [((1024, 768), "projector", 0), ((1024, 768), "projector", 1), ((1280, 800), "projector", 0),
         ((1280, 800), "projector", 2), ((1280, 800), "light", 0), ((1280, 800), "light", 2)]
SHOTS = "/tmp/gradwalk-shots"

# What overflows the window: the page's height past it, and the player's Next button (and the
# step counter) not whole inside it. [] when the player is whole and the page does not scroll.
OFF_SCREEN = """() => {
  const out = [];
  const h = innerHeight, w = innerWidth;
  const page = document.documentElement.scrollHeight;
  if (page > h + 1) out.push(`page ${page} px tall in a ${h} px window`);
  for (const sel of ['#player .btn.forward', '#player .btn.back', '#player .counter']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    if (r.height === 0 || r.top < 0 || r.left < 0 || r.bottom > h + 1 || r.right > w + 1)
      out.push(`${sel} at [${Math.round(r.top)}, ${Math.round(r.bottom)}] in ${h}`);
  }
  return out;
}"""


def tanh_adjoints() -> dict[str, float]:
    """Every node's adjoint of the nudged tanh example (a = 1.001), by PyTorch float64."""
    leaf = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
            for k, v in {"a": 1.001, "b": -0.5, "c": 2.0}.items()}
    e = leaf["a"] * leaf["b"]
    d = e + leaf["a"]
    t = torch.tanh(d)
    L = t * leaf["c"]
    inner = {"e": e, "d": d, "t": t, "L": L}
    for x in inner.values():
        x.retain_grad()
    L.backward()
    return {k: float(x.grad) for k, x in {**leaf, **inner}.items()}


def open_at(open_explorer, size, theme: str, larger: int):
    """A fresh explorer at `size` in `theme`, its text `larger` steps up (A+ in the "Aa" menu)."""
    ex = open_explorer(*size)
    page = themed(ex.page, theme)
    if larger:
        page.click("#view-menu summary")
        for _ in range(larger):
            page.click("#font-larger")
        page.click("#view-menu summary")
    return ex, page


def compared(page, preset: str, edit: tuple[str, str]) -> None:
    """`preset` chosen, Compare runs ticked, the program edited by `edit` and traced."""
    choose(page, preset)
    page.locator("#diff-toggle").check()
    page.wait_for_selector('#diff[data-state="ready"]')
    text = page.eval_on_selector("#editor .editor", "e => e.gradwalkEditor.getText()")
    assert edit[0] in text
    trace(page, text.replace(*edit))
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node].changed')


def whole(page, where: str) -> None:
    assert page.evaluate(OFF_SCREEN) == [], where


def step(page) -> int:
    return int(page.locator("#player").get_attribute("data-step"))


@pytest.mark.parametrize("size,theme,larger", CASES)
def test_the_quiz_with_compare_runs_keeps_the_player_on_screen(open_explorer, size, theme, larger):
    ex, page = open_at(open_explorer, size, theme, larger)
    compared(page, "seed-tanh-fanout", ("a = 1.0", "a = 1.001"))
    page.select_option("#quiz-preset", "adjoints")
    page.wait_for_selector('#quiz[data-quiz="ready"]')
    want = tanh_adjoints()
    leave_editor(page)
    whole(page, "step 0")
    asked = []
    while step(page) < total(page):
        at = step(page)
        name = page.get_attribute("#quiz", "data-asking")
        if name:   # a question: the walk waits for its answer
            name = page.get_attribute(f'#graph g.node[data-node="{name}"]', "data-name")
            asked.append(name)
            whole(page, f"asking {name}̄ at step {at}")
            if len(asked) == 1:
                page.screenshot(path=f"{SHOTS}/compare-quiz-{size[0]}-{theme}-{larger}.png")
            answer(page, "5")   # wrong: the feedback's lines open
            assert page.get_attribute("#quiz", "data-verdict") == "wrong"
            whole(page, f"after a wrong answer for {name}̄ at step {at}")
            answer(page, f"{want[name]:.4f}")
            assert page.get_attribute("#quiz", "data-verdict") == "right", name
            wait_step(page, at + 1)
        else:   # Next (the answer box may hold the keys' focus)
            page.locator("#player .btn.forward").click()
            wait_step(page, at + 1)
        whole(page, f"step {step(page)}")
    assert set(asked) == set(want) - {"L"}   # every adjoint but the seed's was asked
    assert float(node(page, "a").get_attribute("data-adjoint")) == pytest.approx(want["a"], rel=1e-12)
    assert ex.unexpected_errors() == []


@pytest.mark.parametrize("size,theme,larger", CASES)
def test_the_mlp_walk_with_compare_runs_keeps_the_player_on_screen(open_explorer, size, theme, larger):
    ex, page = open_at(open_explorer, size, theme, larger)
    compared(page, "mlp-classifier", MLP_SEED)
    leave_editor(page)
    last = total(page)
    for at in range(last + 1):
        if at:
            page.keyboard.press("ArrowRight")
            wait_step(page, at)
        whole(page, f"step {at}")
        if at == 14:
            page.screenshot(path=f"{SHOTS}/compare-mlp-{size[0]}-{theme}-{larger}.png")
    # the comparison is of the real runs: W1's seed moved the loss
    assert page.locator('#diff tr[data-node].output.changed').count() == 1
    assert ex.unexpected_errors() == []
