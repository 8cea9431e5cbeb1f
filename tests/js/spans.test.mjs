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

// The server counts columns in characters (code points), as engine/parse.py `_char_col` does.
const GREEK = "α = 1.0\nβ = α * 3.0\nL = tanh(β)\n";

test("columns count characters, not UTF-8 bytes", () => {
  // "β = α * 3.0": the engine's span of `α * 3.0` is columns 4..11.
  const [start, end] = rangeOf(GREEK, { line: 2, col: 4, end_line: 2, end_col: 11 });
  assert.equal(GREEK.slice(start, end), "α * 3.0");
  const [s3, e3] = rangeOf(GREEK, { line: 3, col: 4, end_line: 3, end_col: 11 });
  assert.equal(GREEK.slice(s3, e3), "tanh(β)");
});

test("an astral character is one column but two JS string units", () => {
  const src = "𝐱 = 2.0\ny = 𝐱 * 𝐱 + 1.0\n";
  // "y = 𝐱 * 𝐱 + 1.0": `𝐱 * 𝐱` is columns 4..9, `𝐱 * 𝐱 + 1.0` is 4..15.
  const [start, end] = rangeOf(src, { line: 2, col: 4, end_line: 2, end_col: 9 });
  assert.equal(src.slice(start, end), "𝐱 * 𝐱");
  const [s2, e2] = rangeOf(src, { line: 2, col: 4, end_line: 2, end_col: 15 });
  assert.equal(src.slice(s2, e2), "𝐱 * 𝐱 + 1.0");
  assert.equal(offsetOf(src, 1, 1), 2); // after 𝐱: a surrogate pair
});

test("an error span on a non-ASCII line (a point: to the end of the line)", () => {
  const [start, end] = rangeOf(GREEK, { line: 2, col: 4 });
  assert.equal(GREEK.slice(start, end), "α * 3.0");
});
