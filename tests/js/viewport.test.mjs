// The camera: fitted views, the readable scale, and moving only to keep the step in view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { METRICS } from "../../static/js/layout.js";
import { boxOf, contentBox, stepBox } from "../../static/js/boxes.js";
import { autoScale, fitAround, fitTransform, followTransform, MAX_FIT_SCALE, MIN_TEXT_PX, NUMBERS_SCALE, OVERVIEW_SCALE, reaches, READABLE_SCALE, revealTransform, STEP_REACH, TITLE_REACH, wholeScale, wholeTransform } from "../../static/js/viewport.js";

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

test("reveal pans at the same scale, as little as it takes, to show a box that is off screen", () => {
  const t = { k: 0.5, x: 0, y: 0 };
  const box = { x0: 3000, y0: 100, x1: 3200, y1: 200 }; // at x 1500..1600 on screen: off
  const next = revealTransform(t, box, view);
  assert.equal(next.k, 0.5);
  assert.equal(next.y, 0); // y was fine: unchanged
  assert.equal(screen(next, { x: box.x1, y: 0 }).x, view.width - 16); // its far end, at the margin
  // Off the other side: its near end comes to the margin.
  const back = revealTransform({ k: 0.5, x: -2000, y: 0 }, { x0: 100, y0: 100, x1: 300, y1: 200 }, view);
  assert.equal(screen(back, { x: 100, y: 0 }).x, 16);
  // Below the view (behind whatever is under it): up just enough, not centred.
  const low = revealTransform({ k: 1, x: 0, y: 0 }, { x0: 10, y0: 300, x1: 200, y1: 450 }, view);
  assert.equal(low.x, 0);
  assert.equal(screen(low, { x: 0, y: 450 }).y, view.height - 16);
});

test("a box too big for the view shows its core, else its start", () => {
  const t = { k: 1, x: 0, y: 0 };
  const core = { x0: 1500, y0: 10, x1: 1600, y1: 100 };
  const next = revealTransform(t, { x0: 0, y0: 10, x1: 1600, y1: 100, core }, view);
  assert.equal(screen(next, { x: core.x1, y: 0 }).x, view.width - 16);
  const wide = revealTransform(t, { x0: 2000, y0: 10, x1: 4000, y1: 100 }, view);
  assert.equal(screen(wide, { x: 2000, y: 0 }).x, 16);
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
  edges: [{ id: "a->b#0", source: "a", target: "b", points: [{ x: 150, y: 150 }, { x: 1500, y: 380 }, { x: 2850, y: 300 }] }],
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

test("a larger font scale fits the graph larger, up to the same multiple of the cap", () => {
  const box = contentBox(LAYOUT);
  assert.equal(fitAround(box, view, null, { textScale: 1.5 }).k, READABLE_SCALE * 1.5); // too wide: readable x 1.5
  const small = { x0: 0, y0: 0, x1: 100, y1: 50 };
  assert.equal(fitAround(small, view, null).k, MAX_FIT_SCALE);
  assert.equal(fitAround(small, view, null, { textScale: 1.5 }).k, MAX_FIT_SCALE * 1.5);
});

test("a step's box holds both ends of a backward edge and the callout; a forward step its inputs", () => {
  assert.equal(stepBox(LAYOUT, null), null);
  assert.equal(stepBox(LAYOUT, { kind: "done", grads: {} }), null);
  const { core, ...forward } = stepBox(LAYOUT, { kind: "evaluate", node: "b" });
  assert.deepEqual(forward, boxOf(LAYOUT, ["a", "b"])); // b = f(a)
  assert.deepEqual(core, boxOf(LAYOUT, ["b"]));
  const leaf = stepBox(LAYOUT, { kind: "evaluate", node: "a" });
  assert.deepEqual({ ...leaf, core: undefined }, { ...boxOf(LAYOUT, ["a"]), core: undefined });
  const ev = { kind: "accumulate", node: "b", input: "a", arg: 0, contribution: 1, adjoint_before: 0, adjoint_after: 1 };
  const box = stepBox(LAYOUT, ev);
  const ends = boxOf(LAYOUT, ["a", "b"]);
  assert.ok(box.x0 <= ends.x0 && box.x1 >= ends.x1 && box.y0 <= ends.y0 && box.y1 >= ends.y1);
  // When all of it does not fit: both ends first (issue 14: the sending node was left off
  // screen), then the receiving node with its callout.
  assert.deepEqual({ ...box.core, core: undefined }, { ...ends, core: undefined });
  const input = boxOf(LAYOUT, ["a"]);
  const last = box.core.core;
  assert.ok(last.y0 < input.y0 || last.y1 > input.y1); // the callout above or below the input
  assert.ok(last.x0 <= input.x0 && last.x1 >= input.x1 && last.x1 < ends.x1);
});

test("the last step shows the output and the leaves, zooming out only to the readable scale", () => {
  const leaf = (id, x, y) => ({ id, x, y, width: 100, height: 60, node: { role: "leaf" } });
  const wide = (width) => ({
    width, height: 400, edges: [],
    nodes: [leaf("x", 100, 150), leaf("w", 100, 300),
      { id: "L", x: width - 100, y: 200, width: 100, height: 60, node: { role: "op" } }],
  });
  const done = { kind: "done", output: { node: "L" }, grads: { x: 1, w: 2 } };
  const inView = (t, p) => {
    const at = screen(t, p);
    return at.x >= 0 && at.x <= view.width && at.y >= 0 && at.y <= view.height;
  };
  // A little too wide at 2x: the camera zooms out until the leaves and the output fit.
  const near = wide(800);
  const box = stepBox(near, done);
  // the whole graph first; failing that the leaves with the output, then the output alone
  assert.deepEqual(box.core.core, boxOf(near, ["L"]));
  assert.deepEqual({ ...box, core: null, whole: null, overview: null }, { ...boxOf(near, ["x", "w", "L"]), core: null, whole: null, overview: null });
  const t = { k: 2, x: 0, y: 0 };
  const next = revealTransform(t, box, view);
  assert.ok(next.k < t.k && next.k >= READABLE_SCALE);
  for (const p of [{ x: 750, y: 230 }, { x: 50, y: 120 }, { x: 150, y: 330 }]) assert.ok(inView(next, p), JSON.stringify(p));
  // Too wide at the readable scale but not below OVERVIEW_SCALE: Done is an overview, every
  // leaf and the output on screen (issue 9 review: leaves were off screen at Done).
  const wider = wide(3000);
  const t3 = fitTransform(contentBox(wider), view);
  const next3 = revealTransform(t3, stepBox(wider, done), view);
  assert.ok(next3.k < READABLE_SCALE && next3.k >= OVERVIEW_SCALE, String(next3.k));
  for (const p of [{ x: 2950, y: 230 }, { x: 50, y: 120 }, { x: 150, y: 330 }]) assert.ok(inView(next3, p), JSON.stringify(p));
  // Far too wide (all of it only under OVERVIEW_SCALE): never below the readable scale; the
  // output is shown, the far leaves not.
  const far = wide(6000);
  const t2 = fitTransform(contentBox(far), view);
  const next2 = revealTransform(t2, stepBox(far, done), view);
  assert.ok(next2.k >= READABLE_SCALE - 1e-9);
  for (const p of [{ x: 5950, y: 230 }, { x: 5850, y: 170 }]) assert.ok(inView(next2, p), JSON.stringify(p));
  assert.ok(!inView(next2, { x: 50, y: 120 }));
  assert.equal(stepBox(far, { kind: "done", output: { node: "gone" }, grads: {} }), null);
});

test("the tanh fan-out at step 14: the camera pans just enough to show e, a and the callout", () => {
  // The layout of the first example at 1280x720 (a 1248 x 310 px svg), fitted at k = 1.
  const layout = {
    width: 1100, height: 400,
    nodes: [
      { id: "a", x: 160, y: 150, width: 170, height: 90 },
      { id: "b", x: 160, y: 260, width: 170, height: 90 },
      { id: "e", x: 390, y: 260, width: 170, height: 90 },
      { id: "d", x: 620, y: 200, width: 170, height: 90 },
    ],
    edges: [
      { id: "a->e#0", source: "a", target: "e", points: [] },
      { id: "b->e#1", source: "b", target: "e", points: [] },
      { id: "e->d#0", source: "e", target: "d", points: [] },
      { id: "a->d#1", source: "a", target: "d", points: [] },
    ],
  };
  const small = { width: 1248, height: 310 };
  const t = { k: 1, x: 0, y: 20 }; // a in view, e and b cut off at the bottom
  const ev = { kind: "accumulate", node: "e", input: "a", arg: 0, contribution: -0.7864, adjoint_before: 1.5729, adjoint_after: 0.7864 };
  const box = stepBox(layout, ev);
  const next = revealTransform(t, box, small);
  for (const id of ["a", "e"]) {
    const b = boxOf(layout, [id]);
    assert.ok(screen(next, { x: 0, y: b.y0 }).y >= 0 && screen(next, { x: 0, y: b.y1 }).y <= small.height, id);
  }
  assert.ok(screen(next, { x: 0, y: box.y0 }).y >= 0); // the callout too
  assert.equal(next.x, t.x); // no sideways pan
  // For the forward step e = a * b, the camera shows e with both inputs.
  const forward = revealTransform({ k: 1, x: 0, y: -120 }, stepBox(layout, { kind: "evaluate", node: "e" }), small);
  assert.ok(screen(forward, { x: 0, y: 305 }).y <= small.height);
  assert.ok(screen(forward, { x: 0, y: 105 }).y >= 0);
});

test("a new drawing wider than the view shows its output side (home)", () => {
  const box = { x0: 0, y0: 0, x1: 4000, y1: 300 };
  const home = { x0: 3800, y0: 100, x1: 3950, y1: 180 };
  const t = fitAround(box, view, null, { home });
  assert.equal(t.k, READABLE_SCALE);
  assert.ok(screen(t, { x: 3950, y: 180 }).x <= view.width - 16 + 1e-9);
  assert.ok(screen(t, { x: 3800, y: 100 }).x >= 0);
});

test("the theme's least text size raises the automatic scale; the font scale raises both limits", () => {
  assert.deepEqual(autoScale(), { min: READABLE_SCALE, max: MAX_FIT_SCALE, themed: 0, floor: READABLE_SCALE });
  const projector = autoScale({ minText: 27 }); // 27 px numbers: 1.5 x the 18 px layout font
  assert.equal(projector.min, 1.5);
  assert.equal(projector.themed, 1.5);
  assert.equal(autoScale({ textScale: 2 }).min, 2 * READABLE_SCALE);
  assert.equal(autoScale({ textScale: 2, minText: 9 }).max, 2 * MAX_FIT_SCALE);
});

test("after a step the automatic view re-centres an axis the graph fits along, and keeps a wide one", () => {
  const box = { x0: 0, y0: 0, x1: 4000, y1: 200 }; // wide, and short enough to fit in height
  const base = fitTransform(box, view);
  const now = { k: base.k, x: -1500, y: base.y - 60 }; // a glide left the top row cut off
  const next = followTransform(now, box, view, null);
  assert.equal(next.x, -1500);
  assert.equal(next.y, base.y);
});

test("a narrow screen's step zooms out to show both ends, down to its reach (issue 17 item 2)", () => {
  // d = e + a on a 373 px phone: the step is 657 layout units wide, its core (d) 195
  const core = { x0: 462, y0: 0, x1: 657, y1: 100 };
  const box = { x0: 0, y0: 0, x1: 657, y1: 100, core };
  const view = { width: 373, height: 600 };
  const t = { k: 0.7778, x: 0, y: 0 };
  const plain = revealTransform(t, box, view);   // the wide screen's rule: its core, at t's scale
  assert.equal(plain.k, t.k);
  assert.ok(plain.k * core.x0 + plain.x >= 0 && plain.k * core.x1 + plain.x <= view.width);
  const narrow = revealTransform(t, box, view, { reach: 0.25 });
  assert.ok(narrow.k < t.k && narrow.k >= 0.25, narrow.k);
  assert.ok(narrow.k * box.x0 + narrow.x >= 0 && narrow.k * box.x1 + narrow.x <= view.width, narrow);
  // past its reach it shows the core, as before
  assert.equal(revealTransform(t, box, view, { reach: 0.6 }).k, t.k);
});

test("a step's box that fits only with less than the margin is shown whole, not its core alone (issue 14 §5)", () => {
  // mlp-classifier's step 14 with Compare runs on at 1280x800 on a projector: its ends and
  // `+=` note 288.6 px tall in a 320 px band (the margins ask for 288): the note was cut
  // at the band's foot, its ends alone being shown
  const k = 0.7777777777777778;
  const ends = { x0: 1935.5, y0: 103, x1: 2653, y1: 392 };
  const core = { x0: 1820, y0: 192, x1: 2313, y1: 474 }; // the receiving node and its note
  const box = { x0: 1820, y0: 103, x1: 2653, y1: 474, core: { ...ends, core } };
  const band = { width: 1252, height: 320 };
  const t = revealTransform({ k, x: -1063.1, y: -33.8 }, box, band);
  const top = screen(t, { x: 0, y: box.y0 }).y;
  const bottom = screen(t, { x: 0, y: box.y1 }).y;
  assert.ok(top >= 4 - 1e-9 && bottom <= band.height - 4 + 1e-9, `[${top}, ${bottom}] not in the band`);
  // centred: as far from either edge
  assert.ok(Math.abs(top - (band.height - bottom)) < 1e-6);
});

test("reaches: how far each moment zooms out, for its ends and for a title, in one table", () => {
  const plain = autoScale();
  const projector = autoScale({ minText: 27 }); // the projector's own floor, above the readable one
  const floor = plain.floor;
  // a step: its ends down to STEP_REACH of the floor; a cut title only where marks are drawn
  // (the default theme keeps A+'s scale: test_lecture_hall), or in the projector theme
  assert.deepEqual(reaches(plain), { ends: floor * STEP_REACH, titles: floor });
  assert.deepEqual(reaches(plain, { marked: true }), { ends: floor * STEP_REACH, titles: floor * STEP_REACH });
  assert.deepEqual(reaches(projector), { ends: floor * STEP_REACH, titles: floor * TITLE_REACH });
  assert.ok(Math.abs(floor * TITLE_REACH * METRICS.numFont - 13) < 1e-9, "a title's reach prints them at 13 px");
  // a selected node framed beside its panel: as far as the numbers are drawn, for both (X's
  // title under the trace bar at 1024x768 needed 0.556, the framing alone 0.602)
  assert.deepEqual(reaches(projector, { pinned: true }), { ends: NUMBERS_SCALE, titles: NUMBERS_SCALE });
  // beside a question: the asked node alone, titles to the floor; a phone: its overview's reach
  assert.deepEqual(reaches(projector, { asked: true }), { ends: null, titles: floor });
  assert.deepEqual(reaches(plain, { phone: true }), { ends: OVERVIEW_SCALE, titles: null });
});
