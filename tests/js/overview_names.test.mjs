// render/names.js: an overview names each box at 14 px on screen where its name fits (issue 15
// §3: the three spirals' names printed at 4-5 px at Fit on a projector).
import assert from "node:assert/strict";
import { test } from "node:test";

import { fitted, nameBoxes, namesAt, NAMES_UP_TO } from "../../static/js/render/names.js";

const node = (id, label, width, op = undefined, height = 120) => ({ id, x: 0, y: 0, width, height, node: { label, op, role: op ? "op" : "leaf" } });

test("a name fits its box at 14 px on screen, its font size in layout units", () => {
  const boxes = nameBoxes({ nodes: [node("n0", "W1", 200), node("n1", "X @ W1 + b1", 280, "add")] });
  const shown = namesAt(boxes, 0.25); // 14 px on screen is 56 layout units
  assert.equal(shown.length, 2);
  assert.equal(shown[0].size, 56);
  assert.equal(shown[0].name, "W1");
  assert.equal(shown[1].name, "… + b1"); // 11 characters need about 440 units: its op and operand
  const larger = namesAt(boxes, 0.25, 1.5); // A+ makes the names larger too
  assert.equal(larger[0].size, 84);
});

test("a name that does not fit is cut to its own operator's end, the operator, or its call's function", () => {
  assert.equal(fitted({ name: "a + b * c", op: "+" }, 5), "+");
  assert.equal(fitted({ name: "a + b * c", op: "+" }, 7), "+ b * c");
  assert.equal(fitted({ name: "aa + b * c", op: "+" }, 9), "… + b * c"); // never "… * c": the node is a +
  assert.equal(fitted({ name: "h @ W2", op: "@" }, 4), "@ W2"); // the spirals' box left blank (a review)
  assert.equal(fitted({ name: "tanh(d)", op: null }, 4), "tanh");
  assert.equal(fitted({ name: "tanh(d)", op: null }, 3), null);
  assert.equal(fitted({ name: "t", op: null }, 1), "t");
  const short = nameBoxes({ nodes: [node("n0", "L", 200, undefined, 30)] });
  assert.deepEqual(namesAt(short, 0.25), []); // 56 units of text in a 30-unit box
});

test("past NAMES_UP_TO boxes nothing is named (the boxes keep their own text)", () => {
  const nodes = Array.from({ length: NAMES_UP_TO + 1 }, (_, i) => node(`n${i}`, "x", 100));
  assert.equal(nameBoxes({ nodes }), null);
  assert.deepEqual(namesAt(null, 0.25), []);
});
