// One number format per table (format.js formatCells): the detail panel's tables printed
// each cell by formatNumber's 4 decimals, so W1's gradient in the MLP example showed
// -0.0022 (2 significant digits) beside -0.000206 (3) and -0.0006894 (4); a review.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCells } from "../../static/js/format.js";

/** The significant digits a printed number shows ("-0.0002060" 4, "1.835e-08" 4). */
const significantDigits = (s) => s.replace(/e.*$/, "").replace(/[-.]/g, "").replace(/^0+/, "").length;

test("a table's non-zero cells all show 4 significant digits", () => {
  // W1's gradient column at Done (mlp-classifier), as the engine sends it
  const column = [-0.0022034167, -0.000206043, -0.00068943211, 0.0421, 0, 2.0133, -1234.5678];
  const texts = formatCells(column);
  assert.deepEqual(texts, ["-0.002203", "-0.0002060", "-0.0006894", "0.04210", "0", "2.013", "-1235"]);
  for (const t of texts.filter((t) => t !== "0")) assert.equal(significantDigits(t), 4, t);
});

test("tiny and huge cells take the exponent form with as many digits", () => {
  assert.deepEqual(formatCells([1.8351e-8, -123456.7, 0.5]), ["1.835e-08", "-1.235e+05", "0.5000"]);
});

test("a table of whole numbers prints them whole; non-finite cells as the engine sends them", () => {
  assert.deepEqual(formatCells([0, 2, 1, -3]), ["0", "2", "1", "-3"]);
  assert.deepEqual(formatCells([1, "NaN", "-Infinity"]), ["1", "NaN", "-Infinity"]);
  assert.deepEqual(formatCells([0.25, "Infinity"]), ["0.2500", "Infinity"]);
});
