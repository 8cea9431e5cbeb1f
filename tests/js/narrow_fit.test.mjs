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
