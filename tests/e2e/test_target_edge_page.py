"""Issue 15: a target held by a name (`X, y = xor()`, `y = const([...])`) is drawn feeding the
loss that reads it, by a dotted edge that no gradient travels; literal targets have none. The
data nodes are named by the call that made them."""
from __future__ import annotations

from page_helpers import trace

XOR = ("X, y = xor()\nW = [[1.0, 2.0], [0.5, -1.0]]\nb = [0.1, -0.2]\n"
       "L = cross_entropy(X @ W + b, y)\n")


def _edge(page, edge_id: str) -> dict | None:
    return page.evaluate("""id => { const g = document.querySelector(`g.edge[data-edge="${id}"]`);
      if (!g) return null; const line = g.querySelector('path.edge-line');
      const r = line.getBoundingClientRect();
      return {data: g.classList.contains('data'), dash: getComputedStyle(line).strokeDasharray,
              length: line.getTotalLength(), height: r.height, width: r.width,
              shape: g.querySelector('.edge-shape')?.dataset.shape ?? null}; }""", edge_id)


def test_a_name_held_target_is_drawn_feeding_the_loss(explorer):
    page = explorer.page
    trace(page, XOR)
    ids = page.evaluate("() => [...document.querySelectorAll('g.node')].map(n => "
                        "[n.dataset.name, n.dataset.node])")
    by_name = dict(ids)
    edge = _edge(page, f"{by_name['y']}->{by_name['L']}#1")
    assert edge is not None, ids
    assert edge["data"] and edge["dash"] not in ("", "none")
    assert edge["length"] > 20 and max(edge["height"], edge["width"]) > 10
    assert edge["shape"] == "(4,)"
    # the data nodes read as the program wrote the call (their formula), not as 8 numbers
    assert page.locator('g.node[data-name="X"]').get_attribute("aria-label").startswith(
        "X, y = xor()")
    assert explorer.unexpected_errors() == []


def test_literal_targets_draw_no_target_edge(explorer):
    page = explorer.page
    trace(page, "Z = [[1.0, 2.0], [0.5, -1.0]]\nL = cross_entropy(Z, [1, 0])\n")
    assert page.locator("g.edge").count() == 1
    assert page.locator("g.edge.data").count() == 0
