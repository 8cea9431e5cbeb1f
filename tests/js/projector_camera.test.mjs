// Issue 14, section 5: the automatic view's scale on a projector. A graph that fits whole
// at the readable floor is shown whole; a bigger one at the theme's size unless a step (both
// of its ends and its callout) would not fit, then at the largest scale where every step
// does, never under the floor. A tensor node prints its elements only when they are few.
import { test } from "node:test";
import assert from "node:assert/strict";
import { contentBox, STEP_SIZES_UP_TO, stepBox, stepBoxes } from "../../static/js/boxes.js";
import { fitAround, READABLE_SCALE, revealTransform, viewScale, wholeScale } from "../../static/js/viewport.js";
import { inlined, valueRows } from "../../static/js/layout.js";

const PROJECTOR = { minText: 23.625 }; // 1.35rem x 1.25 at 14 px: numbers at scale 1.3125
const view = { width: 996, height: 280 }; // the graph at 1024x768 with the program shown

test("a graph that fits whole at the readable floor is shown whole, not at the projector's size", () => {
  const content = { x0: 0, y0: 0, x1: 1105, y1: 300 }; // the tanh example
  const whole = wholeScale(content, view);
  assert.ok(whole >= READABLE_SCALE && whole < 1.3125, String(whole));
  assert.equal(viewScale(content, view, PROJECTOR).min, READABLE_SCALE); // fitTransform: min(max, whole)
});

test("a graph too big to be whole takes the theme's size when every step fits at it", () => {
  const content = { x0: 0, y0: 0, x1: 5000, y1: 300 };
  const steps = [{ x0: 0, y0: 0, x1: 400, y1: 150 }, { x0: 100, y0: 50, x1: 700, y1: 230 }];
  assert.equal(viewScale(content, view, { ...PROJECTOR, steps }).min, 1.3125);
  assert.equal(viewScale(content, view, PROJECTOR).min, 1.3125); // no steps known: the theme's
});

test("a step too tall at the theme's size lowers the walk's scale until it fits, not under the floor", () => {
  const content = { x0: 0, y0: 0, x1: 5000, y1: 300 };
  const tall = { x0: 0, y0: 0, x1: 400, y1: 220 }; // 248 px of room: 1.127
  const k = viewScale(content, view, { ...PROJECTOR, steps: [{ x0: 0, y0: 0, x1: 200, y1: 100 }, tall] }).min;
  assert.ok(Math.abs(k - wholeScale(tall, view)) < 1e-12 && k < 1.3125, String(k));
  const huge = { x0: 0, y0: 0, x1: 4000, y1: 2000 };
  assert.equal(viewScale(content, view, { ...PROJECTOR, steps: [huge] }).min, READABLE_SCALE);
  // A larger text size raises the floor with it.
  assert.equal(viewScale(content, view, { textScale: 1.5, steps: [huge] }).min, 1.5 * READABLE_SCALE);
});

/** The tanh example's layout (as dagre placed it): a, b leaves; e = a * b; d = e + a. */
function tanhLayout() {
  const node = (id, x, y, role = "op") => ({ id, x, y, width: 181, height: 100, node: { role } });
  return {
    width: 1105, height: 400,
    nodes: [node("a", 90, 150, "leaf"), node("b", 90, 280, "leaf"), node("e", 320, 280), node("d", 550, 220)],
    edges: [
      { id: "a->e#0", source: "a", target: "e", points: [] },
      { id: "b->e#1", source: "b", target: "e", points: [] },
      { id: "e->d#0", source: "e", target: "d", points: [] },
      { id: "a->d#1", source: "a", target: "d", points: [] },
    ],
  };
}

test("stepBoxes measures each step with both its ends and its callout, and skips Done", () => {
  const layout = tanhLayout();
  const send = { kind: "accumulate", node: "e", input: "a", arg: 0, contribution: -0.7864, adjoint_before: 1.5729, adjoint_after: 0.7864 };
  const events = [{ kind: "evaluate", node: "e" }, send, { kind: "done", output: { node: "d" } }];
  const sizes = stepBoxes(layout, events);
  const box = stepBox(layout, send);
  assert.equal(sizes.length, 2);
  assert.ok(sizes.some((s) => s.x0 === box.x0 && s.y0 === box.y0 && s.x1 === box.x1 && s.y1 === box.y1));
  assert.ok(box.y1 - box.y0 > 230); // a's callout above a, e below it
  // the scale the walk gets shows this step whole
  const k = viewScale({ x0: 0, y0: 0, x1: 5000, y1: 400 }, view, { ...PROJECTOR, steps: sizes }).min;
  assert.ok(k * (box.y1 - box.y0) <= view.height - 32 + 1e-9, String(k));
});

test("a fitted view holds every step's callout when they fit: it never pans for one", () => {
  const layout = tanhLayout();
  const send = { kind: "accumulate", node: "e", input: "a", arg: 0, contribution: -0.7864, adjoint_before: 1.5729, adjoint_after: 0.7864 };
  const steps = stepBoxes(layout, [send]);
  const drawing = contentBox(layout);
  const scale = viewScale(drawing, { width: 1252, height: 600 }, { ...PROJECTOR, steps });
  assert.ok(scale.box.y0 < drawing.y0); // a's callout, above the top row, is fitted too
  const wide = { width: 1252, height: 600 };
  const t = fitAround(drawing, wide, null, { ...PROJECTOR, steps });
  assert.equal(revealTransform(t, stepBox(layout, send), wide), null); // in view already: no pan
  // too short for the callouts' room but not for the drawing: the drawing is fitted whole
  const short = { width: 1252, height: 220 };
  assert.deepEqual(viewScale(drawing, short, { ...PROJECTOR, steps }).box, drawing);
});

test("stepBoxes gives up past its bound (the camera then pans at the theme's size)", () => {
  const many = { width: 1, height: 1, edges: [], nodes: Array.from({ length: STEP_SIZES_UP_TO.nodes + 1 }, (_, i) => ({ id: `n${i}`, x: i, y: 0, width: 1, height: 1 })) };
  assert.equal(stepBoxes(many, [{ kind: "evaluate", node: "n0" }]), null);
});

test("a tensor node prints its elements only when they are few: at most 12, at most 4 to a row", () => {
  assert.ok(inlined([4, 3]) && inlined([2]) && inlined([2, 2]) && inlined([4]));
  assert.ok(!inlined([8])); // a bias of 8 printed as one line 60 characters wide
  assert.ok(!inlined([2, 6]) && !inlined([6, 4]) && !inlined([2, 2, 2]));
  assert.equal(valueRows([8]), 3); // min, max, mean
  assert.equal(valueRows([4, 3]), 4);
});

test("a box starting just inside the left edge is moved in by its start, not to the right edge", () => {
  // The tanh example at 1280x800: a's callout began 1.6 px from the left, and the camera put
  // the box's end at the right margin (754 px to the right), the output off screen.
  const t = { k: 1, x: 0, y: 0 };
  const next = revealTransform(t, { x0: 2, y0: 100, x1: 300, y1: 200 }, { width: 1000, height: 400 });
  assert.deepEqual(next, { k: 1, x: 14, y: 0 });
});
