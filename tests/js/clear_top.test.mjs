// viewport.js clearTop: the automatic view never cuts a node's title row or a step's note at
// the top of the graph area (issue 14: c's title and a's "+= 1.5729" note at 1024x768 in the
// projector theme beside the quiz).
import assert from "node:assert/strict";
import { test } from "node:test";

import { clearTop } from "../../static/js/viewport.js";

const view = { width: 1000, height: 200 };
const box = (x0, y0, x1, y1) => ({ x0, y0, x1, y1 });
const cutAtTop = (t, boxes) => boxes.filter((b) => t.k * b.y0 + t.y < 3.5 && t.k * b.y1 + t.y > 0.5);

test("a node cut by the top edge is shown whole when the focus stays in view", () => {
  const c = box(600, 0, 700, 80); // its title row was above the view
  const a = box(0, 100, 100, 180);
  const t = { k: 1, x: 0, y: -10 };
  const out = clearTop(t, [c, a], view, a);
  assert.deepEqual(cutAtTop(out, [c, a]), []);
  assert.ok(out.y > t.y, "panned down to show c's title");
  assert.ok(out.k * a.y1 + out.y <= view.height, "a is still in view");
});

test("when showing it whole would push the focus out, the cut node goes out of view instead", () => {
  const c = box(600, 0, 700, 80);
  const a = box(0, 100, 100, 240); // the focus fills most of the view's height
  const t = { k: 1, x: 0, y: -45 };
  const out = clearTop(t, [c, a], view, a);
  assert.deepEqual(cutAtTop(out, [c, a]), []);
  assert.ok(out.y < t.y, "panned up past c");
  assert.ok(out.y + a.y0 >= 3.5 && out.y + a.y1 <= view.height - 3.5, "a is still whole");
});

test("a step's note (the core of its box) cut at the top comes into view", () => {
  const note = box(0, 60, 100, 100);
  const a = box(0, 100, 100, 180);
  // the step (both ends and the note) is taller than the view: its two ends are shown, and
  // the receiving node with its note is their core
  const focus = { ...box(0, 60, 300, 260), core: { ...box(0, 100, 300, 220), core: { ...box(0, 60, 100, 180) } } };
  const t = { k: 1, x: 0, y: -75 };
  const out = clearTop(t, [a], view, focus);
  assert.ok(out.y + note.y0 >= 3.5, `the note's top at ${out.y + note.y0}`);
});

test("nothing cut: the view stays", () => {
  const t = { k: 1, x: 0, y: 20 };
  assert.equal(clearTop(t, [box(0, 0, 100, 80)], view, null), t);
  assert.equal(clearTop(t, null, view, null), t);
});
