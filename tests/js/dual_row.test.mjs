// Session 8 review (helper B): forward mode's boxes write the dual number value + tangent ε as
// a teacher does, the tangent's sign under the caption and its digits under the value's
// ("VALUE 2" over "+ 1ε", as the narration writes "2 + 1ε"), not under a caption "ε".
import { test } from "node:test";
import assert from "node:assert/strict";
import { dualRow } from "../../static/js/modes.js";

test("a scalar tangent is the second term of the dual number, hung two characters left", () => {
  assert.deepEqual(dualRow(1), { caption: "", lines: ["+ 1ε"], hang: 2 });
  assert.deepEqual(dualRow(0.39322386648296376), { caption: "", lines: ["+ 0.3932ε"], hang: 2 });
  assert.deepEqual(dualRow(-0.5), { caption: "", lines: ["- 0.5ε"], hang: 2 });
  assert.deepEqual(dualRow(0), { caption: "", lines: ["+ 0ε"], hang: 2 });
  assert.deepEqual(dualRow("-Infinity").lines, ["- Infinityε"]);
  assert.deepEqual(dualRow("NaN").lines, ["+ NaNε"]);
});

test("before its tangent is known the row is captioned tangent and empty", () => {
  assert.deepEqual(dualRow(undefined), { caption: "tangent", lines: [], hang: 0 });
});

test("a tensor's tangent rows follow + ε·; its summary is captioned tangent", () => {
  const matrix = { shape: [2, 2], dtype: "float64", data: [[1, 0], [0, -0.5]] };
  assert.deepEqual(dualRow(matrix, 2), { caption: "+ ε·", lines: ["[1, 0]", "[0, -0.5]"], hang: 0 });
  const vector = { shape: [3], dtype: "float64", data: [0, 1, 0] };
  assert.deepEqual(dualRow(vector, 1), { caption: "+ ε·", lines: ["[0, 1, 0]"], hang: 0 });
  const big = { shape: [20, 20], dtype: "float64", summary: { min: -1, max: 2, mean: 0.25 } };
  assert.deepEqual(dualRow(big, 3), { caption: "tangent", lines: ["min -1", "max 2", "mean 0.25"], hang: 0 });
});
