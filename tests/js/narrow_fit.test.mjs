// A phone's Fit (issue 17, section 2): all of the graph while its numbers read (14 px), else
// the current step at that size, never smaller.
import { test } from "node:test";
import assert from "node:assert/strict";
import { METRICS } from "../../static/js/layout.js";
import { READABLE_SCALE, readableTransform, wholeTransform } from "../../static/js/viewport.js";

const phone = { width: 374, height: 420 }; // the graph's box on a 390x844 phone
const screen = (t, p) => ({ x: t.k * p.x + t.x, y: t.k * p.y + t.y });

test("a graph that fits at 14 px is shown whole, as the wide layout's Fit shows it", () => {
  const small = { x0: 0, y0: 0, x1: 300, y1: 200 };
  assert.deepEqual(readableTransform(small, phone, null), wholeTransform(small, phone));
});

test("a graph too wide for 14 px stays at 14 px with the current step in view", () => {
  const wide = { x0: 0, y0: 0, x1: 2400, y1: 300 }; // the tanh example's width, about
  assert.ok(wholeTransform(wide, phone).k * METRICS.numFont < 14); // what Fit did: 2.6 px
  const step = { x0: 1800, y0: 100, x1: 2000, y1: 200 };
  const t = readableTransform(wide, phone, step);
  assert.equal(t.k, READABLE_SCALE);
  assert.ok(Math.abs(t.k * METRICS.numFont - 14) < 1e-9);
  const [a, b] = [screen(t, { x: step.x0, y: step.y0 }), screen(t, { x: step.x1, y: step.y1 })];
  assert.ok(a.x >= 0 && b.x <= phone.width && a.y >= 0 && b.y <= phone.height, JSON.stringify({ a, b }));
});

test("an overview (step 0, Done) shows its core at 14 px, not the whole graph at 2 px", () => {
  const wide = { x0: 0, y0: 0, x1: 4000, y1: 600 };
  const output = { x0: 3800, y0: 250, x1: 3950, y1: 330 };
  const overview = { ...wide, whole: true, overview: true, core: output };
  const t = readableTransform(wide, phone, overview);
  assert.equal(t.k, READABLE_SCALE);
  const end = screen(t, { x: output.x1, y: output.y1 });
  assert.ok(end.x <= phone.width && end.x > 0, JSON.stringify(end));
});

test("a larger text size raises the floor with it", () => {
  const wide = { x0: 0, y0: 0, x1: 2400, y1: 300 };
  assert.equal(readableTransform(wide, phone, null, { floor: 1.25 * READABLE_SCALE }).k, 1.25 * READABLE_SCALE);
});

// The automatic view (issue 17, section 2): at step 0 and Done a phone zoomed out to 0.31,
// its names at 7 px and its numbers hidden; with `overview` at the readable floor it stays
// there and shows the output (Done's core), and a step's view is as before.
test("a phone's overview (step 0, Done) stays at the readable floor and shows the output", async () => {
  const { fitAround, followTransform, OVERVIEW_SCALE, revealTransform } = await import("../../static/js/viewport.js");
  const wide = { x0: 0, y0: 0, x1: 1300, y1: 300 }; // whole at 0.26 in a phone's graph
  const output = { x0: 1150, y0: 100, x1: 1280, y1: 180 };
  const leaves = { x0: 0, y0: 0, x1: 1280, y1: 300, core: output, whole: true, overview: true };
  const done = { ...wide, whole: true, overview: true, core: leaves };
  const wideView = fitAround(wide, phone, done); // the lecture hall's: zoomed out to show it all
  assert.ok(wideView.k < READABLE_SCALE && wideView.k >= OVERVIEW_SCALE, String(wideView.k));
  const floor = { overview: READABLE_SCALE };
  for (const t of [fitAround(wide, phone, null, { ...floor, home: done }), fitAround(wide, phone, done, floor),
    followTransform(wideView, wide, phone, done, floor), revealTransform({ k: 1, x: 0, y: 0 }, done, phone, floor)]) {
    assert.equal(t.k, READABLE_SCALE);
    const [a, b] = [screen(t, { x: output.x0, y: output.y0 }), screen(t, { x: output.x1, y: output.y1 })];
    assert.ok(a.x >= 0 && b.x <= phone.width && a.y >= 0 && b.y <= phone.height, JSON.stringify({ a, b }));
  }
  // a step (no overview) is framed as before
  const step = { x0: 600, y0: 100, x1: 800, y1: 200 };
  assert.deepEqual(fitAround(wide, phone, step, floor), fitAround(wide, phone, step));
});
