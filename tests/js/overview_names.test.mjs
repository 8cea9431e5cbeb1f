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

// Issue 14 §5 on a projector: the MLP's overview set `b1`, `W1` and `h @ W2` over their heat
// maps, and cut the gelu product's label to `… * …)…`, a constant's to nothing.
const heated = (id, label, width, heat, op = undefined, height = 140) => ({ ...node(id, label, width, op, height), heat: { width: heat } });

test("a name stands beside or above a box's heat maps, never across them", () => {
  const [w1] = nameBoxes({ nodes: [heated("n0", "W1", 300, 150)] });
  const [shown] = namesAt([w1], 1);
  const heatLeft = w1.x + w1.width / 2 - 12 - 150;
  const half = (CHAR_EM * shown.size * [...shown.name].length) / 2;
  assert.equal(shown.name, "W1");
  assert.ok(shown.x + half <= heatLeft, `${shown.x} + ${half} runs into the heat map at ${heatLeft}`);
  // no room left of a wide heat map: in the header band, across the box's top
  const [b1] = nameBoxes({ nodes: [heated("n1", "b1", 200, 168)] });
  const [over] = namesAt([b1], 1);
  assert.equal(over.name, "b1");
  assert.ok(over.y + over.size / 2 <= b1.y - b1.height / 2 + 36, `${over.y} is on the heat maps`);
  // a box without heat maps keeps its name in its middle
  const [plain] = namesAt(nameBoxes({ nodes: [node("n2", "L", 200)] }), 1);
  assert.deepEqual([plain.x, plain.y], [0, 0]);
});

const CHAR_EM = 0.72;

test("a cut name is balanced, its own operator found outside brackets, one ellipsis a cut", () => {
  const name = "gelu(x * w + x * x * …)…"; // the old engine label of the product
  for (let room = 3; room <= 30; room += 1) {
    const out = fitted({ name, op: "*" }, room);
    if (out === null) continue;
    assert.doesNotMatch(out, /…[)\]}"']*…/u, `${room}: ${out}`);
    assert.ok(!out.startsWith("… *") || !out.slice(1).includes("…"), `${room}: ${out}`);
  }
  assert.equal(fitted({ name: "gelu(x…) * gelu(w * x…)", op: "*" }, 16), "* gelu(w * x…)");
  assert.equal(fitted({ name: "gelu(a) * c", op: "*" }, 6), "… * c");
  assert.equal(fitted({ name: "gelu(a) * c", op: "*" }, 4), "* c");
  assert.equal(fitted({ name: "gelu(a) * c", op: null }, 4), null); // not "gelu" (no call of gelu), nor "ge…"
  assert.equal(fitted({ name: "gelu(a) * c", op: null }, 9), "gelu(a)…");
  assert.equal(fitted({ name: "0.044715", op: null }, 6), "0.044…"); // a constant's box was blank
});
