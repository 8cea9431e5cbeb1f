// Where the minimap goes (static/js/mapcorner.js): the first corner that covers nothing drawn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cornerBox, freeCorner, overlaps, screenBox } from "../../static/js/mapcorner.js";

const VIEW = { width: 1000, height: 400 };
const SIZE = { width: 200, height: 100 };

test("the corners' boxes, inset from the view's sides", () => {
  assert.deepEqual(cornerBox("bottom-left", VIEW, SIZE, 6), { x: 6, y: 294, width: 200, height: 100 });
  assert.deepEqual(cornerBox("top-right", VIEW, SIZE, 6), { x: 794, y: 6, width: 200, height: 100 });
});

test("overlap, with a gap", () => {
  const a = { x: 0, y: 0, width: 10, height: 10 };
  assert.equal(overlaps(a, { x: 10, y: 0, width: 5, height: 5 }), false); // touching edges
  assert.equal(overlaps(a, { x: 12, y: 0, width: 5, height: 5 }, 3), true);
  assert.equal(overlaps(a, { x: 5, y: 5, width: 1, height: 1 }), true);
});

test("bottom left when it is free; else the next free corner; else none", () => {
  assert.equal(freeCorner(VIEW, SIZE, []), "bottom-left");
  const callout = { x: 40, y: 320, width: 170, height: 60 }; // b's += callout, bottom left
  assert.equal(freeCorner(VIEW, SIZE, [callout]), "top-left");
  const top = { x: 0, y: 0, width: 1000, height: 60 };
  assert.equal(freeCorner(VIEW, SIZE, [callout, top]), "bottom-right");
  const everywhere = { x: 100, y: 50, width: 800, height: 300 };
  assert.equal(freeCorner(VIEW, SIZE, [everywhere]), null);
  assert.equal(freeCorner({ width: 150, height: 400 }, SIZE, []), null); // does not fit
});

test("a layout node on screen under the camera", () => {
  assert.deepEqual(screenBox({ k: 2, x: 10, y: 20 }, { x: 50, y: 30, width: 20, height: 10 }),
    { x: 90, y: 70, width: 40, height: 20 });
});

// issue 14: at 1024x768 with the text at 130% the minimap took the top-left corner 3 px
// over node a: its frame and 0.4rem inset, and a's focus ring, were not counted.
test("a node with its ring, against the minimap as drawn, takes the corner", () => {
  assert.deepEqual(screenBox({ k: 2, x: 10, y: 20 }, { x: 50, y: 30, width: 20, height: 10 }, 7),
    { x: 76, y: 56, width: 68, height: 48 });
  const view = { width: 988, height: 257 };
  const t = { k: 1.0111, x: -8.27, y: -60.71 };
  const a = { x: 114.5, y: 178, width: 181, height: 100 }; // its box's top 68.7 px down the view
  const corners = ["top-left"];
  // was: the svg alone (200 x 53), 6 px in, against a's box: free, and drawn over a's ring
  assert.equal(freeCorner(view, { width: 200, height: 53 }, [screenBox(t, a)], { corners }), "top-left");
  // the frame's 2 px borders, 0.4rem = 8 px in, a's ring: not free
  assert.equal(freeCorner(view, { width: 204, height: 57 }, [screenBox(t, a, 7)], { inset: 8, corners }), null);
});
