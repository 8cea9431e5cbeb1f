// Session 8 review (helper B): an hvp walk's backward graph is far wider than its program, and
// at 1024x768 its leaves and its output s = ⟨∇L, v⟩ do not fit together even at the overview's
// floor. Step 0 and Done then show the leaves, where the walk starts (their tangents v) and
// what Done reads out ((H v)_a), not s alone; other walks keep the output (viewport.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { contentBox, LEAVES_SCALE, overviewBox, stepBox } from "../../static/js/boxes.js";
import { fitTransform, OVERVIEW_SCALE, READABLE_SCALE, revealTransform } from "../../static/js/viewport.js";

const view = { width: 996, height: 390 }; // the graph's svg at 1024x768 (program shown)
const screen = (t, p) => ({ x: t.k * p.x + t.x, y: t.k * p.y + t.y });
const inView = (t, n) => {
  const a = screen(t, { x: n.x - n.width / 2, y: n.y - n.height / 2 });
  const b = screen(t, { x: n.x + n.width / 2, y: n.y + n.height / 2 });
  return a.x >= 0 && a.y >= 0 && b.x <= view.width && b.y <= view.height;
};

/** The layout of `L = sum(tanh(X @ W))` with X 2x3, W 3x2 in hvp mode, as the page drew it. */
// 4516 wide as the page drew it: the leaves with s fit at 0.22, between LEAVES_SCALE and
// OVERVIEW_SCALE; 5600 wide they do not fit even at LEAVES_SCALE (0.18).
function hvpLayout({ hvp = true, width = 5600 } = {}) {
  const symbol = (name) => (hvp ? `(H v)_${name}` : `${name}̄`);
  const nodes = [
    { id: "n0", x: 241.5, y: 199, width: 275, height: 100, node: { role: "leaf", name: "X", adjoint_symbol: symbol("X") } },
    { id: "n1", x: 241.5, y: 814, width: 275, height: 100, node: { role: "leaf", name: "W", adjoint_symbol: symbol("W") } },
    { id: "n4", x: 1681, y: 114, width: 181, height: 100, node: { role: "op", name: "L" } },
    { id: "n22", x: width - 90.5, y: 575, width: 181, height: 100, node: { role: "op", name: "s" } },
  ];
  return { width, height: 960, nodes, edges: [] };
}

test("an hvp walk too wide for its leaves and s shows its leaves at step 0 and Done", () => {
  const layout = hvpLayout();
  const [X, W, , s] = layout.nodes;
  const start = fitTransform(contentBox(layout), view);
  assert.equal(start.k, READABLE_SCALE);
  const home = overviewBox(layout, "n22");
  const done = stepBox(layout, { kind: "done", output: { node: "n22" } });
  for (const box of [home, done]) {
    const t = revealTransform(start, box, view);
    assert.ok(inView(t, X) && inView(t, W), JSON.stringify(t)); // was s alone at the readable scale
    assert.ok(!inView(t, s));
    assert.ok(t.k >= OVERVIEW_SCALE && t.k <= READABLE_SCALE, String(t.k));
    // at the left margin, the graph after them filling the rest of the view (not centred)
    assert.ok(Math.abs(screen(t, { x: X.x - X.width / 2, y: 0 }).x - 16) < 1e-9);
  }
});

test("an hvp walk whose leaves and s fit at the overview's floor shows them all", () => {
  const layout = hvpLayout({ width: 3600 });
  const t = revealTransform(fitTransform(contentBox(layout), view), overviewBox(layout, "n22"), view);
  for (const n of [layout.nodes[0], layout.nodes[1], layout.nodes[3]]) assert.ok(inView(t, n), n.id);
  assert.ok(t.k >= OVERVIEW_SCALE);
});

test("a reverse walk as wide keeps its output in view at the readable scale", () => {
  const layout = hvpLayout({ hvp: false });
  const t = revealTransform(fitTransform(contentBox(layout), view), overviewBox(layout, "n22"), view);
  assert.ok(inView(t, layout.nodes[3]));
  assert.ok(!inView(t, layout.nodes[0]));
  assert.equal(t.k, READABLE_SCALE);
});

test("leaves and an output that fit only under a quarter are shown together down to LEAVES_SCALE", () => {
  // the page's layout (4516 wide: 0.22), an hvp walk and a reverse one alike (README: step 0
  // and Done show the whole graph, else every leaf with the output; a review of issue 14)
  for (const hvp of [true, false]) {
    const layout = hvpLayout({ hvp, width: 4516 });
    const t = revealTransform(fitTransform(contentBox(layout), view), overviewBox(layout, "n22"), view);
    for (const n of [layout.nodes[0], layout.nodes[1], layout.nodes[3]]) assert.ok(inView(t, n), `${hvp} ${n.id}`);
    assert.ok(t.k >= LEAVES_SCALE && t.k < OVERVIEW_SCALE, String(t.k));
  }
  // a narrow screen's overview keeps to its readable floor (viewport.js overviewFloor)
  const layout = hvpLayout({ hvp: false, width: 4516 });
  const t = revealTransform(fitTransform(contentBox(layout), view), overviewBox(layout, "n22"), view, { overview: READABLE_SCALE });
  assert.ok(t.k >= READABLE_SCALE - 1e-9, String(t.k));
});
