// The camera: fitted views, the readable scale, and moving only to keep the step in view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { METRICS } from "../../static/js/layout.js";
import {
  boxOf, contentBox, fitAround, fitTransform, MAX_FIT_SCALE, MIN_TEXT_PX, READABLE_SCALE, revealTransform,
  stepBox, wholeScale, wholeTransform,
} from "../../static/js/viewport.js";

const view = { width: 1000, height: 400 };
/** Where layout point p lands on screen under t. */
const screen = (t, p) => ({ x: t.k * p.x + t.x, y: t.k * p.y + t.y });

test("the readable scale prints a node's numbers at 14 px", () => {
  assert.equal(MIN_TEXT_PX, 14);
  assert.ok(Math.abs(READABLE_SCALE * METRICS.numFont - 14) < 1e-9);
});

test("a graph that fits is centred, and a small one is not blown up past the cap", () => {
  const small = fitTransform({ width: 200, height: 100 }, view);
  assert.equal(small.k, MAX_FIT_SCALE);
  const centre = screen(small, { x: 100, y: 50 });
  assert.deepEqual(centre, { x: 500, y: 200 });
  const medium = fitTransform({ width: 1200, height: 300 }, view); // width-bound, k about 0.8
  assert.ok(medium.k > READABLE_SCALE && medium.k < 1);
  assert.ok(screen(medium, { x: 1200, y: 300 }).x <= 1000);
});

test("a big graph stops shrinking at the readable scale and starts at its inputs", () => {
  const big = fitTransform({ width: 20000, height: 600 }, view);
  assert.equal(big.k, READABLE_SCALE);
  assert.equal(big.x, 16); // the left edge, with a margin
  assert.equal(big.y, 16); // 600 * 0.78 = 467 > 400: from the top too
  assert.ok(wholeScale({ width: 20000, height: 600 }, view) < 0.05);
});

test("reveal does nothing when the box is on screen", () => {
  const t = { k: 1, x: 0, y: 0 };
  assert.equal(revealTransform(t, { x0: 10, y0: 10, x1: 200, y1: 100 }, view, 40), null);
  assert.equal(revealTransform(t, null, view), null);
});

test("reveal pans at the same scale to centre a box that is off screen", () => {
  const t = { k: 0.5, x: 0, y: 0 };
  const box = { x0: 3000, y0: 100, x1: 3200, y1: 200 }; // at x 1500..1600 on screen: off
  const next = revealTransform(t, box, view);
  assert.equal(next.k, 0.5);
  assert.equal(next.y, 0); // y was fine: unchanged
  const left = screen(next, { x: box.x0, y: 0 }).x;
  const right = screen(next, { x: box.x1, y: 0 }).x;
  assert.ok(left >= 0 && right <= view.width);
  assert.ok(Math.abs((left + right) / 2 - view.width / 2) < 1e-9);
});

test("the box of some nodes", () => {
  const layout = { nodes: [
    { id: "a", x: 100, y: 50, width: 100, height: 40 },
    { id: "b", x: 300, y: 150, width: 100, height: 40 },
  ] };
  assert.deepEqual(boxOf(layout, ["a", "b"]), { x0: 50, y0: 30, x1: 350, y1: 170 });
  assert.deepEqual(boxOf(layout, ["a", undefined]), { x0: 50, y0: 30, x1: 150, y1: 70 });
  assert.equal(boxOf(layout, []), null);
});

const LAYOUT = {
  width: 3000, height: 400,
  nodes: [
    { id: "a", x: 100, y: 150, width: 100, height: 60 },
    { id: "b", x: 2900, y: 300, width: 100, height: 60 },
  ],
  edges: [{ id: "a->b#0", points: [{ x: 150, y: 150 }, { x: 1500, y: 380 }, { x: 2850, y: 300 }] }],
};

test("the content box holds the nodes and edges, not the empty room above them", () => {
  assert.deepEqual(contentBox(LAYOUT), { x0: 50, y0: 120, x1: 2950, y1: 380 });
});

test("a box is fitted from its own corner, and Fit shows all of it at any scale", () => {
  const box = contentBox(LAYOUT);
  const auto = fitTransform(box, view);
  assert.equal(auto.k, READABLE_SCALE);
  assert.equal(screen(auto, { x: box.x0, y: box.y0 }).x, 16); // the start, at the margin
  const whole = wholeTransform(box, view);
  assert.ok(whole.k < READABLE_SCALE);
  const tl = screen(whole, { x: box.x0, y: box.y0 });
  const br = screen(whole, { x: box.x1, y: box.y1 });
  assert.ok(tl.x >= 0 && tl.y >= 0 && br.x <= view.width && br.y <= view.height);
});

test("the automatic view keeps the current step in view", () => {
  const box = contentBox(LAYOUT);
  const focus = boxOf(LAYOUT, ["b"]);
  const t = fitAround(box, view, focus);
  assert.equal(t.k, READABLE_SCALE);
  const left = screen(t, { x: focus.x0, y: focus.y0 });
  const right = screen(t, { x: focus.x1, y: focus.y1 });
  assert.ok(left.x >= 0 && right.x <= view.width && left.y >= 0 && right.y <= view.height);
  assert.deepEqual(fitAround(box, view, null), fitTransform(box, view));
});

test("a step's box holds its node and the callout drawn for it", () => {
  assert.equal(stepBox(LAYOUT, null), null);
  assert.deepEqual(stepBox(LAYOUT, { kind: "evaluate", node: "a" }), boxOf(LAYOUT, ["a"]));
  const ev = { kind: "accumulate", node: "b", input: "a", arg: 0, contribution: 1, adjoint_before: 0, adjoint_after: 1 };
  const box = stepBox(LAYOUT, ev);
  const node = boxOf(LAYOUT, ["a"]);
  assert.ok(box.y0 < node.y0 || box.y1 > node.y1); // the callout above or below the node
  assert.ok(box.x0 <= node.x0 && box.x1 >= node.x1);
});
