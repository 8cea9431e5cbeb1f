// render/stepnumbers.js stepNodes: which nodes' numbers the line under a zoomed-out step
// reads, in order (issue 17 §2, a review: a phone at step 5 of the tanh example, d = e + a,
// showed d, e and a at scale 0.52 with no numbers). The line itself is a browser test
// (tests/e2e/test_live_camera_page.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { stepNodes } from "../../static/js/render/stepnumbers.js";

// the tanh example's edges: e = a * b, d = e + a, t = tanh(d), L = t * c
const layout = {
  edges: [["a", "e"], ["b", "e"], ["e", "d"], ["a", "d"], ["d", "t"], ["t", "L"], ["c", "L"]]
    .map(([source, target]) => ({ source, target })),
};

test("a forward step reads its inputs, then the value it computes", () => {
  assert.deepEqual(stepNodes(layout, { kind: "evaluate", node: "d", value: 0.5 }), { ids: ["e", "a", "d"], what: "value" });
  assert.deepEqual(stepNodes(layout, { kind: "evaluate", node: "a", value: 1 }), { ids: ["a"], what: "value" });
});

test("a backward edge reads the sending node's adjoint, then the receiving node's", () => {
  const ev = { kind: "accumulate", node: "t", input: "d", arg: 0, contribution: 1.5729 };
  assert.deepEqual(stepNodes(layout, ev), { ids: ["t", "d"], what: "grad" });
  assert.deepEqual(stepNodes(layout, { kind: "seed", node: "L" }), { ids: ["L"], what: "grad" });
});

test("a node used twice by one op is read once; no step (step 0, Done) reads nothing", () => {
  const squared = { edges: [{ source: "x", target: "y" }, { source: "x", target: "y" }] };
  assert.deepEqual(stepNodes(squared, { kind: "evaluate", node: "y" }).ids, ["x", "y"]);
  assert.equal(stepNodes(layout, null), null);
  assert.equal(stepNodes(layout, { kind: "done" }), null);
});
