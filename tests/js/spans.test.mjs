import { test } from "node:test";
import assert from "node:assert/strict";
import { offsetOf, rangeOf } from "../../static/js/spans.js";

const text = "a = 1.0\nb = -0.5\ne = a * b\n";

test("1-based lines, 0-based columns", () => {
  assert.equal(offsetOf(text, 1, 0), 0);
  assert.equal(offsetOf(text, 3, 4), text.indexOf("a * b"));
  assert.equal(offsetOf(text, 3, null), text.indexOf("e ="));
});

test("a span becomes a [start, end) range", () => {
  const [start, end] = rangeOf(text, { line: 3, col: 4, end_line: 3, end_col: 9 });
  assert.equal(text.slice(start, end), "a * b");
});

test("without an end the range runs to the end of the line", () => {
  const [start, end] = rangeOf(text, { line: 2, col: 4 });
  assert.equal(text.slice(start, end), "-0.5");
});

test("no line, no range; out-of-range lines are clamped", () => {
  assert.equal(rangeOf(text, { line: null, col: null }), null);
  assert.equal(rangeOf(text, null), null);
  const [start] = rangeOf(text, { line: 99, col: 0 });
  assert.ok(start <= text.length);
});

test("columns count UTF-8 bytes, as Python's ast does", () => {
  const src = 'é = 1.0\nL = é * é\n';
  // "L = é * é": the second é is bytes 9..11 (é takes 2 bytes) but characters 8..9.
  const [start, end] = rangeOf(src, { line: 2, col: 9, end_line: 2, end_col: 11 });
  assert.equal(src.slice(start, end), "é");
  assert.equal(start, src.indexOf("\n") + 1 + 8);
});
