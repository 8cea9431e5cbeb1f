// What the camera keeps in view beside an open detail panel (issue 14 §5): the clicked node
// and its neighbours, the node alone when they do not fit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pinBox } from "../../static/js/boxes.js";
import { READABLE_SCALE, revealTransform } from "../../static/js/viewport.js";

const node = (id, x, y) => ({ id, x, y, width: 100, height: 60 });
const edge = (source, target, arg = 0) => ({ id: `${source}->${target}#${arg}`, source, target });
// X @ W -> L, as the linear-layer example's W, its product and the output, far to its right
const LAYOUT = {
  nodes: [node("X", 100, 100), node("W", 100, 300), node("XW", 400, 200), node("L", 1400, 200)],
  edges: [edge("X", "XW"), edge("W", "XW", 1), edge("XW", "L")],
};

test("a pinned node's box holds the nodes it reads and those that read it, its core the node", () => {
  assert.deepEqual(pinBox(LAYOUT, "W"), { x0: 50, y0: 170, x1: 450, y1: 330, core: { x0: 50, y0: 270, x1: 150, y1: 330 } });
  // XW reads X and W, L reads it: all four, not the nodes two edges away
  const xw = pinBox(LAYOUT, "XW");
  assert.deepEqual([xw.x0, xw.y0, xw.x1, xw.y1], [50, 70, 1450, 330]);
  assert.equal(pinBox(LAYOUT, "gone"), null); // not drawn (in a collapsed group)
});

test("where the neighbours do not fit beside the panel, the node alone is shown at the scale", () => {
  const t = { k: READABLE_SCALE, x: -2000, y: 0 };
  const shown = revealTransform(t, pinBox(LAYOUT, "XW"), { width: 400, height: 300 });
  assert.equal(shown.k, READABLE_SCALE); // never zoomed out for it
  const x0 = shown.k * 350 + shown.x;
  assert.ok(x0 >= 0 && shown.k * 450 + shown.x <= 400, shown);
});
