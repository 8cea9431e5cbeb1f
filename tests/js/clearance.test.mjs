// clearance.js: the automatic view never cuts a node's title row or a step's note at the top
// of the graph area (issue 14: c's title and a's "+= 1.5729" note at 1024x768 in the
// projector theme beside the quiz), and keeps the drawing out from under the panels over
// the graph (the detail panel hid Y and L of the linear layer, the trace bar W's title).
import assert from "node:assert/strict";
import { test } from "node:test";

import { clearSide, clearTop, clearView, coverOf, cutsSide, cutsTop, cutsView, freeView, insetsOf, intoFree, NO_INSET, nodeBoxes, reachRight, uncutView } from "../../static/js/clearance.js";
import { STEP_SIZES_UP_TO } from "../../static/js/boxes.js";
import { EDGE, viewScale } from "../../static/js/viewport.js";

const view = { width: 1000, height: 200 };
const box = (x0, y0, x1, y1) => ({ x0, y0, x1, y1 });
const cutAtTop = (t, boxes) => boxes.filter((b) => t.k * b.y0 + t.y < EDGE - 0.5 && t.k * b.y1 + t.y > 0.5);

test("a node cut by the top edge is shown whole when the focus stays in view", () => {
  const c = box(600, 0, 700, 80); // its title row was above the view
  const a = box(0, 100, 100, 180);
  const t = { k: 1, x: 0, y: -10 };
  const out = clearTop(t, [c, a], view, a);
  assert.deepEqual(cutAtTop(out, [c, a]), []);
  assert.equal(out.y, EDGE, "panned down just far enough to show c's title");
  assert.ok(out.k * a.y1 + out.y <= view.height - EDGE, "a is still in view");
});

test("when showing it whole would push the focus out, the cut node goes out of view instead", () => {
  const c = box(600, 0, 700, 80);
  const a = box(0, 100, 100, 240); // the focus fills most of the view's height
  const t = { k: 1, x: 0, y: -45 };
  const out = clearTop(t, [c, a], view, a);
  assert.deepEqual(cutAtTop(out, [c, a]), []);
  assert.equal(out.y, -80, "panned up past c");
  assert.ok(out.y + a.y0 >= EDGE && out.y + a.y1 <= view.height - EDGE, "a is still whole");
});

test("a step's note (the core of its box) cut at the top comes into view", () => {
  const note = box(0, 60, 100, 100);
  const a = box(0, 100, 100, 180);
  // the step (both ends and the note) is taller than the view: its two ends are shown, and
  // the receiving node with its note is their core
  const focus = { ...box(0, 60, 300, 260), core: { ...box(0, 100, 300, 220), core: { ...box(0, 60, 100, 180) } } };
  const t = { k: 1, x: 0, y: -75 };
  const out = clearTop(t, [a], view, focus);
  assert.ok(out.y + note.y0 >= EDGE, `the note's top at ${out.y + note.y0}`);
});

test("no place clears every title without losing the focus: the view stays", () => {
  // rows staggered so that every top edge cuts one of them (the matmul graph beside the quiz)
  const rows = [box(0, 0, 100, 120), box(200, 60, 300, 180), box(400, 130, 500, 250)];
  const t = { k: 1, x: 0, y: -40 };
  assert.equal(clearTop(t, rows, view, rows[2]), t);
});

test("cutsTop says whether the top edge cuts a box clearTop keeps whole, as clearTop sees it", () => {
  const c = box(600, 0, 700, 80);
  const a = box(0, 100, 100, 240);
  const t = { k: 1, x: 0, y: -45 };
  assert.equal(cutsTop(t, [c, a], view, a), true); // no place clears it (the test above)
  assert.equal(cutsTop({ ...t, y: EDGE }, [c], view), false);
  assert.equal(cutsTop({ ...t, x: -2000 }, [c, a], view, a), false); // out of view sideways
  // at a smaller scale a place exists (render/zoom.js zooms out to the floor for it)
  const small = { k: 0.8, x: 0, y: EDGE };
  assert.equal(cutsTop(clearTop(small, [c, a], view, a), [c, a], view, a), false);
});

test("viewScale's `scale` sets the scale, with the steps' box where they fit at it", () => {
  const steps = [box(0, -50, 100, 100)];
  const at = viewScale(box(0, 0, 400, 100), { width: 1000, height: 400 }, { steps, scale: 0.9 });
  assert.deepEqual([at.min, at.max, at.box], [0.9, 0.9, box(0, -50, 400, 100)]);
  const tall = viewScale(box(0, 0, 400, 100), { width: 1000, height: 150 }, { steps, scale: 0.9 });
  assert.deepEqual(tall.box, box(0, 0, 400, 100)); // with the steps it would not fit at 0.9
});

test("a node out of view sideways is not cut", () => {
  const aside = box(1200, 0, 1300, 80); // right of the view at this pan
  const t = { k: 1, x: 0, y: -10 };
  assert.equal(clearTop(t, [aside], view, null), t);
});

test("nothing cut: the view stays", () => {
  const t = { k: 1, x: 0, y: 20 };
  assert.equal(clearTop(t, [box(0, 0, 100, 80)], view, null), t);
  assert.equal(clearTop(t, null, view, null), t);
});

test("nodeBoxes: one box a node, none past STEP_SIZES_UP_TO", () => {
  const layout = { nodes: [{ x: 50, y: 40, width: 100, height: 80 }] };
  assert.deepEqual(nodeBoxes(layout), [box(0, 0, 100, 80)]);
  const big = { nodes: Array.from({ length: STEP_SIZES_UP_TO.nodes + 1 }, () => layout.nodes[0]) };
  assert.equal(nodeBoxes(big), null);
});

// ---------------------------------------------------------------- panels over the graph

const svg = { left: 14, top: 273, right: 1010, bottom: 561 }; // 996 x 288, as at 1024x768

test("the detail panel counts from the right, the trace bar from the top", () => {
  const detail = { left: 507, top: 279, right: 1004, bottom: 486 }; // half the width, most of the height
  const trace = { left: 20, top: 279, right: 288, bottom: 319 };
  const inset = insetsOf(svg, [detail, trace]);
  assert.deepEqual(inset, { left: 0, top: 46, right: 503, bottom: 0 });
  assert.deepEqual(freeView({ width: 996, height: 288 }, inset), { width: 493, height: 242 });
});

test("a panel counts from the side it hides least from; one that misses the svg or takes more than 60% from every side, for nothing", () => {
  assert.deepEqual(insetsOf(svg, [{ left: 0, top: 0, right: 100, bottom: 100 }]), NO_INSET);
  const bar = { left: 0, top: 500, right: 2000, bottom: 600 }; // across the bottom, 61 px up
  assert.deepEqual(insetsOf(svg, [bar]), { ...NO_INSET, bottom: 61 });
  assert.deepEqual(insetsOf(svg, [{ ...svg }]), NO_INSET); // all of it: no side can take it
});

test("a transform of the free part and of the whole svg are the same camera", () => {
  const inset = { left: 0, top: 46, right: 503, bottom: 0 };
  const t = { k: 0.8, x: 12, y: -30 };
  assert.deepEqual(intoFree(t, inset), { k: 0.8, x: 12, y: -76 });
  assert.deepEqual(intoFree(intoFree(t, inset), inset, true), t);
  assert.equal(intoFree(null, inset), null);
});

test("uncutView zooms out for the view, down to `least`, where no place at its scale keeps a title whole", () => {
  const view = { width: 1000, height: 200 };
  const b2 = box(600, 0, 700, 60); // above the step, its title cut when the step is placed
  const step = box(0, 40, 300, 230); // its note at the foot: 190 units, the view 200 px
  const place = ({ scale = 1 } = {}) => ({ k: scale, x: 0, y: view.height - EDGE - scale * step.y1 });
  assert.ok(cutsTop(place(), [b2, step], view, step), "cut at the walk's scale");
  const out = uncutView(place, [b2, step], view, step, 0.74);
  assert.ok(out.k < 1 && out.k >= 0.74, `zoomed out to ${out.k}`);
  assert.equal(cutsTop(out, [b2, step], view, step), false);
  assert.equal(uncutView(place, [b2, step], view, step, null).k, 1, "null: the walk's scale, cut");
  assert.equal(uncutView(place, [b2, step], view, step, 0.99).k, 1, "no place down to 0.99: the first");
});

// ---------------------------------------------------------------- the top edge beside the trace bar

test("coverOf gives the panels counted from the top, in the free view's frame, and freeView passes them on", () => {
  const detail = { left: 507, top: 279, right: 1004, bottom: 486 };
  const trace = { left: 20, top: 279, right: 288, bottom: 319 };
  const cover = coverOf(svg, [detail, trace]);
  assert.deepEqual({ ...cover, tops: undefined }, { left: 0, top: 46, right: 503, bottom: 0, tops: undefined,
    side: { right: 503, foot: 167 } }); // the detail panel, from the right: 503 px deep, its foot 167 px down the free view
  assert.deepEqual(cover.tops, [{ x0: 6, x1: 274, y: 0 }]); // the bar, from 6 to 274 px across
  assert.deepEqual(freeView({ width: 996, height: 288 }, cover), { width: 493, height: 242, top: -46, tops: cover.tops });
  // the camera's note, from edge to edge, over the bar: it covers past the edges, and a box
  // beside the bar is judged against its foot, as without the bar a box anywhere is
  const note = { left: 14, top: 273, right: 1010, bottom: 300 };
  const both = coverOf(svg, [note, { ...trace, top: 304, bottom: 344 }]);
  assert.deepEqual(both.tops, [{ x0: -Infinity, x1: Infinity, y: -44 }, { x0: 6, x1: 274, y: 0 }]);
  const view = freeView({ width: 996, height: 288 }, both);
  assert.equal(cutsTop({ k: 1, x: -50, y: -80 }, [box(0, 0, 40, 30)], view), false, "hidden under the note, partly out at the left");
  assert.equal(cutsTop({ k: 1, x: 300, y: -42 }, [box(0, 0, 100, 40)], view), true, "cut by the note's foot");
  assert.equal(cutsTop({ k: 1, x: 300, y: -40 }, [box(0, 0, 100, 40)], view), false, "whole below it");
});

// The free view of mlp-classifier's graph beside W1's panel at 1024x768 on a projector: the bar
// over its first 280 px, 46 px deep; beside it the graph shows up to its own top, 46 px above.
const beside = { width: 507, height: 260, top: -46, tops: [{ x0: 6, x1: 280, y: 0 }] };

test("under the trace bar a title must be below the bar's foot; beside it, below the svg's top", () => {
  const x = box(0, 0, 200, 100); // under the bar
  const b1 = box(300, -40, 500, 60); // beside it: its title 40 px above the free view's top
  assert.equal(cutsTop({ k: 1, x: 0, y: 10 }, [x, b1], beside), false, "b1 whole in the band beside the bar");
  assert.equal(cutsTop({ k: 1, x: 0, y: -10 }, [x, b1], beside), true, "x's title under the bar");
  assert.equal(cutsTop({ k: 1, x: 0, y: -5 }, [b1], beside), true, "b1 cut at the svg's top");
  // without tops the free view's top is the edge everywhere: b1 counts as cut at y = 10
  assert.equal(cutsTop({ k: 1, x: 0, y: 10 }, [x, b1], { width: 507, height: 260 }), true);
});

test("clearTop places a box beside the bar whole up to the svg's top, and one under it below the bar", () => {
  const x = box(0, 100, 200, 200); // under the bar
  const b1 = box(300, 0, 500, 110); // beside it
  const focus = box(0, 100, 500, 250);
  const out = clearTop({ k: 1, x: 0, y: -60 }, [x, b1], beside, focus);
  assert.equal(cutsTop(out, [x, b1], beside, focus), false);
  assert.equal(out.y, -42, "b1's top at the svg's top (-46) and EDGE");
  assert.ok(out.y + x.y0 >= EDGE, "x's title below the bar");
});

test("uncutView zooms out by whole 3% steps, to the first that cuts no title", () => {
  const view = { width: 1000, height: 200 };
  const b2 = box(600, 0, 700, 60);
  const step = box(0, 40, 300, 230);
  const place = ({ scale = 1 } = {}) => ({ k: scale, x: 0, y: view.height - EDGE - scale * step.y1 });
  const out = uncutView(place, [b2, step], view, step, 0.5);
  // b2 whole (its top at EDGE, half a pixel's slack) with the step's foot EDGE from the bottom:
  // k * 230 <= 192.5, reached by 3% steps from 1 (0.97^6 = 0.8330); a finer search framed less
  // sideways (clearance.js uncutView)
  const most = 192.5 / 230;
  assert.ok(out.k <= most && out.k > 0.97 * most, `zoomed out to ${out.k}`);
  assert.ok(Math.abs(out.k - 0.97 ** 6) < 1e-9, `zoomed out to ${out.k}`);
});

// ---------------------------------------------------------------- the detail panel's edge

// A free view beside a detail panel 490 px deep at its right, its foot 150 px down the view.
const panelled = { width: 500, height: 260, panelRight: { right: 490, foot: 150 } };

test("clearSide pans a box across the panel's edge wholly under it or left of it, keeping the focus", () => {
  const b1 = box(400, 0, 600, 60); // its tag under the panel at x = 0
  const focus = box(0, 80, 300, 200);
  const t = { k: 1, x: 0, y: 10 };
  assert.equal(cutsSide(t, [b1, focus], panelled), true);
  const out = clearSide(t, [b1, focus], panelled, focus);
  assert.equal(cutsSide(out, [b1, focus], panelled), false);
  assert.equal(out.x, 100, "b1 under the panel (left of it, at -104, would cut the focus at the left)");
  // no panel (no panelRight): clearView is clearTop
  assert.deepEqual(clearView(t, [b1, focus], { width: 500, height: 260 }, focus), t);
});

test("a box under the panel that reaches below its foot has its title under it: moved clear", () => {
  const h = box(560, 120, 760, 220); // under the panel, its numbers below the foot (150)
  const focus = box(0, 40, 300, 140);
  const t = { k: 1, x: 0, y: 0 };
  assert.equal(cutsSide(t, [h, focus], panelled), true);
  assert.equal(cutsSide({ ...t, y: 60 }, [box(560, 0, 760, 90), focus], panelled), false, "wholly under it");
  const out = clearView(t, [h, focus], panelled, focus);
  assert.equal(cutsView(out, [h, focus], panelled, focus), false);
  assert.ok(out.k * focus.x0 + out.x >= 0 && out.k * focus.x1 + out.x <= 500, "the focus still in view across");
});

test("reachRight: the room beside a panel holds the boxes in view that cross the pinned box's right edge", () => {
  // mlp-classifier's h selected (its neighbours from x 0 to 1190) and b2 above h @ W2, to 1272
  const pin = { x0: 0, y0: 200, x1: 1190, y1: 500 };
  const b2 = { x0: 850, y0: 80, x1: 1272, y1: 180 };
  assert.equal(reachRight(pin, [b2], 330, 10 / 18), 1272); // 594 layout units tall in view: b2 in it
  // too far above to be in that view, or wholly right of the pinned box (the camera leaves it
  // past the panel), or inside it: the box's own edge
  assert.equal(reachRight(pin, [{ ...b2, y0: -600, y1: -500 }], 330, 10 / 18), 1190);
  assert.equal(reachRight(pin, [{ ...b2, x0: 1200, x1: 1500 }], 330, 10 / 18), 1190);
  assert.equal(reachRight(pin, [{ ...b2, x1: 1100 }], 330, 10 / 18), 1190);
  assert.equal(reachRight(pin, null, 330, 10 / 18), 1190);
});
