// tagplace.js: a tag beside a node covers no other box (a review of issue 14: XOR seed 003's
// dead tag, centred over h, stood over W2.T and ran under `h @ W2.T`).
import assert from "node:assert/strict";
import { test } from "node:test";

import { placeTag, tagShapes, wrapWords } from "../../static/js/tagplace.js";

const h = { x: 500, y: 300, width: 100, height: 60 };
const box = (x0, y0, x1, y1) => ({ x0, y0, x1, y1 });
const head = "h: units 0, 1 dead";
const tail = " (since iteration 0)";
const hits = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

test("with nothing around, the tag is centred above the box on one line", () => {
  const at = placeTag(h, [], { head, tail });
  assert.equal(at.anchor, "middle");
  assert.equal(at.x, 0);
  assert.ok(at.box.y1 <= h.y - h.height / 2, "above the box");
  assert.deepEqual(at.shape.text, [`${head}${tail}`]);
  assert.equal(at.clear, true);
});

test("a box above (W2.T) sends the tag below", () => {
  const w2t = box(440, 180, 560, 262);
  const at = placeTag(h, [w2t], { head, tail });
  assert.equal(at.clear, true);
  assert.ok(at.box.y0 >= h.y + h.height / 2, "below the box");
  assert.ok(!hits(at.box, w2t));
});

test("boxes above and close beside below it wrap the tag to the box's width", () => {
  const others = [box(300, 180, 700, 262), box(250, 340, 420, 500), box(580, 340, 800, 500)];
  const at = placeTag(h, others, { head, tail });
  assert.equal(at.clear, true, JSON.stringify(at));
  assert.ok(at.shape.text.length > 1, "wrapped");
  for (const o of others) assert.ok(!hits(at.box, o));
});

test("with no clear place the end is cut (left to the tooltip), else the least covered place", () => {
  const shapes = tagShapes(head, tail, 10);
  assert.deepEqual(shapes.map((s) => s.tail), ["same", "own", "own", "cut", "cut"]);
  const walls = [box(0, 0, 1000, 262), box(0, 338, 1000, 600)];
  const at = placeTag(h, walls, { head, tail });
  assert.equal(at.clear, false);
});

test("words wrap at spaces, a long word whole", () => {
  assert.deepEqual(wrapWords("h: units 0, 1 dead", 9), ["h: units", "0, 1 dead"]);
  assert.deepEqual(wrapWords("averyverylongname dead", 5), ["averyverylongname", "dead"]);
});
