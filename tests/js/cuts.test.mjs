// What the walk does not record, and which warnings a step shows (static/js/cuts.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cutNodes, noGradNodes, warningLabel, warningPlace, warningsAt } from "../../static/js/cuts.js";

const GRAPH = {
  nodes: [
    { id: "n0", op: "leaf" }, { id: "n1", op: "mul" }, { id: "n2", op: "detach" },
    { id: "n3", op: "add", recorded: false }, { id: "n4", op: "stop_gradient" },
  ],
  blocks: [{ kind: "no_grad", nodes: ["n1"] }, { kind: "checkpoint", nodes: ["n0"] }],
};

test("no_grad nodes: an op node's recorded: false and the no_grad blocks' nodes, not a checkpoint's", () => {
  assert.deepEqual([...noGradNodes(GRAPH)].sort(), ["n1", "n3"]);
  assert.deepEqual([...noGradNodes({ nodes: [] })], []);
  assert.deepEqual([...noGradNodes(undefined)], []);
});

test("detach and stop_gradient nodes cut the edge into them", () => {
  assert.deepEqual([...cutNodes(GRAPH)], ["n2", "n4"]);
});

const CUT = { kind: "cut", message: "e = detach(a * b) cuts the path", node: "n2", field: null, line: 5, col: 4, end_line: 5, end_col: 17 };
const KINK = { kind: "non_differentiable", message: "relu is not differentiable at 0", node: "n1", field: "tangents", line: 2, col: 4, end_line: 2, end_col: 11 };

test("every warning at Done; before it only a forward walk's kinks already passed", () => {
  assert.deepEqual(warningsAt([CUT, KINK], { phase: "done" }), [CUT, KINK]);
  assert.deepEqual(warningsAt([CUT, KINK], { phase: "backward" }), []);
  assert.deepEqual(warningsAt([CUT, KINK], { phase: "forward", tangents: { n0: 1 } }), []);
  assert.deepEqual(warningsAt([CUT, KINK], { phase: "forward", tangents: { n0: 1, n1: 0 } }), [KINK]);
  assert.deepEqual(warningsAt(undefined, { phase: "done" }), []);
  assert.deepEqual(warningsAt([CUT], null), []);
});

test("a warning's badge and place", () => {
  assert.equal(warningLabel("cut"), "path cut");
  assert.equal(warningLabel("non_differentiable"), "not differentiable here");
  assert.equal(warningLabel("some_new_kind"), "some new kind");
  assert.equal(warningPlace(CUT), "line 5, col 5");
  assert.equal(warningPlace({ line: 3, col: null }), "line 3");
  assert.equal(warningPlace({ line: null }), "");
});
