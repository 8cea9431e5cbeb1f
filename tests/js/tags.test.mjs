// tags.js: the camera's boxes hold the marks drawn over a node's box (Compare runs' "Δ ...",
// a dead unit's tag): c's Δ was cut at the graph's top at step 0 of the tanh example compared
// at 1280x800 on a projector, its box fitted 16 px below the edge and its Δ 22 px above it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TAG_ROOM, withTags } from "../../static/js/tags.js";
import { fitTransform } from "../../static/js/viewport.js";

const box = (x0, y0, x1, y1) => ({ x0, y0, x1, y1 });
const c = box(717, 64, 898, 164); // the tanh example's layout: c is on the top row
const b = box(24, 256, 205, 356);
const drawing = box(24, 64, 1129, 356);

test("a box holding a marked node is raised by the mark's room, flags and cores kept", () => {
  const step = { ...box(700, 60, 1000, 200), whole: true, core: { ...c, asked: true } };
  const out = withTags(step, [c]);
  assert.equal(out.y0, c.y0 - TAG_ROOM);
  assert.equal(out.whole, true);
  assert.equal(out.core.y0, c.y0 - TAG_ROOM);
  assert.equal(out.core.asked, true);
  assert.deepEqual([out.x0, out.x1, out.y1], [700, 1000, 200]);
});

test("a box holding no marked node, or no marks at all, is the box itself", () => {
  const e = box(255, 248, 436, 348);
  assert.equal(withTags(e, [c]), e);
  assert.equal(withTags(drawing, []), drawing);
  assert.equal(withTags(null, [c]), null);
  // b's mark lies inside the drawing, above b: the drawing's top is c's, unchanged by it
  assert.equal(withTags(drawing, [b]), drawing);
});

test("the fitted drawing keeps c's mark inside the view (it was 6 px above the top)", () => {
  const view = { width: 1252, height: 320 };
  const plain = fitTransform(drawing, view, { min: 0.778, max: 2 });
  const marked = fitTransform(withTags(drawing, [c]), view, { min: 0.778, max: 2 });
  const markTop = (t) => t.k * (c.y0 - 22) + t.y; // Δ's top, 22 units over c (diff.css)
  assert.ok(markTop(plain) < 0, "the failure this fixes");
  assert.ok(markTop(marked) >= 0);
  assert.ok(marked.k * drawing.y1 + marked.y <= view.height, "and b's foot is still in view");
});

// A dead tag goes where tagplace.js finds room: XOR seed 5's under h, whose step at 1280x800
// framed h with its top raised and left the tag 1 px under the graph area.
const h = box(400, 300, 600, 400);
const below = box(420, 409, 580, 427);

test("a node's placed mark below it grows the box's foot, not its top", () => {
  const step = { ...box(100, 250, 650, 400), core: h };
  const out = withTags(step, [{ ...h, mark: below }]);
  assert.deepEqual([out.x0, out.y0, out.x1, out.y1], [100, 250, 650, below.y1]);
  assert.deepEqual([out.core.x0, out.core.y0, out.core.x1, out.core.y1], [400, 300, 600, below.y1]);
});

test("a placed mark wider than the box widens it; a Δ over the node too still raises its top", () => {
  const wide = box(380, 409, 640, 427);
  const out = withTags(h, [{ ...h, mark: wide, above: true }]);
  assert.deepEqual([out.x0, out.y0, out.x1, out.y1], [380, h.y0 - TAG_ROOM, 640, wide.y1]);
  // a mark inside the box changes nothing
  const inner = { ...h, mark: box(420, 320, 580, 340), above: false };
  assert.equal(withTags(h, [inner]), h);
});
