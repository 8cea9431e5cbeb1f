// Issue 14, section 5: counts are plural by count on the page too (format.js counted).
import { test } from "node:test";
import assert from "node:assert/strict";
import { counted } from "../../static/js/format.js";
import { gradcheckVerdict } from "../../static/js/modes.js";

test("counted", () => {
  assert.equal(counted(1, "pass", "passes"), "1 pass");
  assert.equal(counted(3, "pass", "passes"), "3 passes");
  assert.equal(counted(1200, "row"), "1,200 rows");
  assert.equal(counted(0, "leaf", "leaves"), "0 leaves");
});

test("the gradient check's verdict counts its leaves", () => {
  const one = gradcheckVerdict({ x: { ok: false } }, "1e-6");
  assert.equal(one, "Central differences with h = 1e-6: 1 of 1 leaf disagrees with the backward pass: x.");
  const two = gradcheckVerdict({ x: { ok: false }, y: { ok: true } }, "1e-6");
  assert.equal(two, "Central differences with h = 1e-6: 1 of 2 leaves disagree with the backward pass: x.");
});
