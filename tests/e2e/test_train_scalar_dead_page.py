"""The dead unit of seed 003's XOR written as the seed writes it (scalars, `for` over
`zip(X, Y)`, a list comprehension, `def forward`; tests/engine/train_programs.py LOOP_XOR)
with the weights of random.seed(5), trained on the page (issue 15 §2-3): the unit is one relu
node per sample (engine/train/units.py), and each of them carries the dead mark the tensor
preset's `h` carries (tests/e2e/test_train_page.py), the status line naming the unit once."""
from __future__ import annotations

import sys
from pathlib import Path

from page_helpers import own_program

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from train_programs import seed003_loop_xor  # noqa: E402

TEXT = "hid: unit 3 dead (since iteration 0)"
# hid's unit 3: the relu `(W1[6] * x0 + W1[7] * x1 + b1[3]).relu()` of each of the 4 samples
UNIT_3 = ["n41", "n120", "n199", "n278"]


def _marked(page) -> list[list]:
    return page.eval_on_selector_all("g.node.dead", """els => els.map(e => [e.dataset.node,
        e.dataset.dead, e.querySelector('text.dead-tag')?.textContent ?? null])""")


def test_the_dead_unit_is_marked_on_each_samples_relu_of_the_scalar_graph(explorer):
    page = explorer.page
    own_program(page, seed003_loop_xor(5))
    page.select_option("#mode", "train")
    page.fill("#train-steps", "20")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]')
    assert page.locator("#train-dead").inner_text() == TEXT   # once, not once a sample
    page.wait_for_selector("g.node.dead")   # drawn once the graph of the train mode is
    assert _marked(page) == [[n, TEXT, TEXT] for n in UNIT_3]
    # a chosen iteration's recorded walk marks the same nodes, from its own dead_units
    slider = page.locator("#train-iteration")
    slider.fill("19")
    slider.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="19"]')
    page.wait_for_selector('#app[data-status="ready"]')
    page.wait_for_selector("g.node.dead")
    assert _marked(page) == [[n, TEXT, TEXT] for n in UNIT_3]
    assert not explorer.unexpected_errors()
