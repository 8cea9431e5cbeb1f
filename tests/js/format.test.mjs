import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  boxLines, formatNumber, formatShape, formatSummary, formatValue, fullPrecision, isTensor, kindWords,
  shapeName, shapeText, summaryLines, tensorRows,
} from "../../static/js/format.js";
import { calloutOf, narrate } from "../../static/js/narration.js";
import { toTex } from "../../static/js/tex.js";

const tensor = (shape, data, summary = { min: 0, max: 0, mean: 0, norm: 0 }) =>
  ({ shape, dtype: "float64", summary, data });

test("the engine's rule: 4 decimals without trailing zeros, for 1e-3 <= |x| < 1e5", () => {
  assert.equal(formatNumber(0.46211715726000974), "0.4621");
  assert.equal(formatNumber(1.5728954659318548), "1.5729"); // the narration's number, not 1.573
  assert.equal(formatNumber(-0.7864477329659274), "-0.7864");
  assert.equal(formatNumber(2), "2");
  assert.equal(formatNumber(-0.5), "-0.5");
  assert.equal(formatNumber(1234.5678), "1234.5678");
  assert.equal(formatNumber(0.09608822615448974), "0.0961");
  assert.equal(formatNumber(0), "0");
  assert.equal(formatNumber(-0), "0");
});

test("... else 4 significant digits, with Python's exponents", () => {
  assert.equal(formatNumber(1.835e-8), "1.835e-08");
  assert.equal(formatNumber(-2.5e-7), "-2.5e-07");
  assert.equal(formatNumber(0.00012345), "0.0001234");
  assert.equal(formatNumber(12345678), "1.235e+07");
  assert.equal(formatNumber(1e300), "1e+300");
  assert.equal(formatNumber(5e-324), "4.941e-324");
});

test("exact ties round half to even, as Python does", () => {
  assert.equal(formatNumber(0.03125), "0.0312"); // toFixed(4) would say 0.0313
  assert.equal(formatNumber(-0.09375), "-0.0938");
  assert.equal(formatNumber(123450), "1.234e+05"); // toExponential(3) would say 1.235e+5
});

test("every number of the engine's own reference list prints the same", () => {
  // fixtures/short-numbers.json: engine/trace/values.py short(x), computed by the engine.
  const { cases } = JSON.parse(readFileSync(new URL("./fixtures/short-numbers.json", import.meta.url)));
  assert.ok(cases.length > 40);
  for (const [x, want] of cases) assert.equal(formatNumber(x), want, String(x));
});

test("non-finite numbers arrive as strings and show as such", () => {
  assert.equal(formatNumber("NaN"), "NaN");
  assert.equal(formatNumber("Infinity"), "Infinity");
  assert.equal(formatNumber("-Infinity"), "-Infinity");
  assert.equal(formatNumber(Number.NaN), "NaN");
  assert.equal(formatNumber(-Infinity), "-Infinity");
});

test("anything else shows a question mark instead of throwing", () => {
  assert.equal(formatNumber("nan"), "?");
  assert.equal(formatNumber(null), "?");
  assert.equal(formatNumber(undefined), "?");
  assert.equal(formatNumber({}), "?");
});

test("shapes", () => {
  assert.equal(formatShape([2, 3]), "2×3");
  assert.equal(formatShape([5]), "5");
  assert.equal(formatShape([]), "scalar");
  // where a rule, a note or an edge writes a shape: the engine's shape_text, never "(4,3)"
  assert.equal(shapeText([4, 3]), "4×3");
  assert.equal(shapeText([8]), "8-vector");
  assert.equal(shapeText([2, 3, 4]), "2×3×4");
  assert.equal(shapeText([]), "scalar");
  assert.equal(shapeName([8]), "8-vector");
  assert.equal(shapeName([6, 4]), "6×4 matrix");
});

test("tensors: small data inline, else a summary", () => {
  const m = tensor([2, 2], [[19, 22], [43, 50]]);
  assert.ok(isTensor(m));
  assert.ok(!isTensor(1.5));
  assert.ok(!isTensor("NaN"));
  assert.deepEqual(tensorRows(m), ["[19, 22]", "[43, 50]"]);
  assert.equal(formatValue(m), "[[19, 22], [43, 50]]");
  assert.equal(formatValue(tensor([3], [0.3, 0, "-Infinity"])), "[0.3, 0, -Infinity]");
  const big = tensor([100, 100], null, { min: -1, max: 4, mean: 2.5, norm: "Infinity" });
  assert.equal(tensorRows(big), null);
  assert.equal(formatValue(big), "100×100 matrix · min -1 · max 4 · mean 2.5");
  assert.equal(formatSummary({ min: "NaN", max: "NaN", mean: "NaN" }), "min NaN · max NaN · mean NaN");
});

test("a tensor's summary names its shape as a shape, never a bare size that reads as a value", () => {
  // the MLP's typeset Done line read "dL/db1 = 8   min −0.1052 …" on the projector: 8 a value
  const b1 = tensor([8], null, { min: -0.1052, max: 0.2206, mean: 0.0367, norm: 1 });
  assert.equal(formatValue(b1), "8-vector · min -0.1052 · max 0.2206 · mean 0.0367");
  assert.equal(formatValue(tensor([6, 4], null, { min: -1, max: 4, mean: 2.5 })), "6×4 matrix · min -1 · max 4 · mean 2.5");
  assert.equal(formatValue(tensor([2, 3, 4], null, { min: -1, max: 4, mean: 2.5 })), "2×3×4 tensor · min -1 · max 4 · mean 2.5");
  const nodes = { n9: { id: "n9", label: "L" } };
  const done = narrate({ kind: "done", output: { node: "n9", name: "L", value: 0.5 }, grads: { b1 } }, nodes);
  assert.equal(done, "Done. dL/db1 = 8-vector · min -0.1052 · max 0.2206 · mean 0.0367");
  // typeset: "8-vector" one upright word after its size, never the subtraction 8 − vector
  assert.match(toTex(done), /= 8\\text\{-vector\} \\quad \{\\text\{min\}/);
  assert.match(toTex("dL/dW1 = 6×4 matrix · min -1"), /= 6\\times 4\\ \\text\{matrix\} \\quad /);
  // and a += note beside its node the same
  const note = calloutOf({ kind: "accumulate", input: "n1", contribution: b1, adjoint_before: b1, adjoint_after: b1 });
  assert.equal(note.lines[0], "+= 8-vector · min -0.1052 · max 0.2206 · mean 0.0367");
});

test("data-* attributes carry full precision", () => {
  assert.equal(fullPrecision(0.7864477329659274), "0.7864477329659274");
  assert.equal(fullPrecision(-0), "0");
  assert.equal(fullPrecision("NaN"), "NaN");
  assert.equal(fullPrecision(undefined), null);
  assert.equal(fullPrecision(tensor([2], [17.000000000000004, "Infinity"])), '[17.000000000000004,"Infinity"]');
  assert.equal(fullPrecision(tensor([2], null, { min: 1, max: 2 })), '{"min":1,"max":2}');
});

test("a summary in lines, for narrow boxes", () => {
  assert.deepEqual(summaryLines({ min: 0, max: 0.00026823, mean: 2.683e-5, norm: 1 }),
    ["min 0", "max 0.0002682", "mean 2.683e-05"]);
  assert.deepEqual(summaryLines(null), []);
});

test("a node box's lines: one number, the rows of a small tensor, else its summary", () => {
  assert.deepEqual(boxLines(1.5728954659318548, 1), ["1.5729"]);
  assert.deepEqual(boxLines(undefined, 1), []);
  assert.deepEqual(boxLines(tensor([2, 2], [[19, 22], [43, 50]]), 2), ["[19, 22]", "[43, 50]"]);
  const big = tensor([100, 10], null, { min: -1, max: 4, mean: 2.5, norm: 1 });
  assert.deepEqual(boxLines(big, 3), ["min -1", "max 4", "mean 2.5"]);
});

test("an error's kind is written in the engine's words (engine/errors.py kind_words)", () => {
  assert.equal(kindWords("syntax"), "syntax error");
  assert.equal(kindWords("unknown_name"), "unknown name");
  assert.equal(kindWords("unsupported"), "unsupported");
  assert.equal(kindWords(undefined), "error");
});
