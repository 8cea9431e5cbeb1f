// Issue 9 review items on the page, the parts without a DOM: the gradient check's elements
// and verdict, the Jacobian's table, the forward walk's direction, the bug lab's Done text and
// warning, the Done narration of a vector output, forward mode's memory (none) and hvp mode's
// (the backward graph's values, kept), and which programs are in hvp mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { bugDoneText, forwardBugNote } from "../../static/js/bugs.js";
import { forwardOnly, ledgerSeries } from "../../static/js/ledger.js";
import {
  directionText, gradcheckElements, gradcheckRows, gradcheckVerdict, hvpLine, jacobianTable,
} from "../../static/js/modes.js";
import { narrate } from "../../static/js/narration.js";

const golden = (name) => JSON.parse(readFileSync(new URL(`../golden/${name}.json`, import.meta.url)));

// The API's row for x = [[1, 0], [-1, 2]] in L = sum(relu(x) * 3.0) (engine/trace/gradcheck.py).
const KINK_ROW = {
  max_abs_error: 1.4999999997655777, max_rel_error: 1.0, ok: false, eps: 1e-6, atol: 1e-5, rtol: 1e-3,
  numeric: { shape: [2, 2], dtype: "float64", data: [[2.9999999995311555, 1.4999999997655777], [0.0, 2.9999999995311555]] },
  analytic: { shape: [2, 2], dtype: "float64", data: [[3.0, 0.0], [0.0, 3.0]] },
  kink: "relu at 0 (line 2): central differences average the one-sided slopes 0 and 1",
};

test("a tensor leaf's check lists its elements, the worst first, with both values and errors", () => {
  const elements = gradcheckElements("x", KINK_ROW);
  assert.equal(elements.length, 4);
  assert.deepEqual(elements[0].index, [0, 1]);
  assert.equal(elements[0].name, "x[0, 1]");
  assert.equal(elements[0].analytic, 0);
  assert.equal(elements[0].numeric, 1.4999999997655777);
  assert.equal(elements[0].abs_error, 1.4999999997655777);
  assert.equal(elements[0].rel_error, 1);
  assert.equal(elements[0].ok, false);
  // the others agree: |a − n| ≤ atol + rtol·|n|; both 0 is a relative error of 0
  assert.deepEqual(elements.slice(1).map((e) => e.ok), [true, true, true]);
  assert.equal(elements.find((e) => e.name === "x[1, 0]").rel_error, 0);
  assert.equal(gradcheckElements("x", KINK_ROW, 2).length, 2); // the worst `limit`
  // a scalar leaf has no elements; an API `elements` list is taken as it is
  assert.equal(gradcheckElements("a", { analytic: 0.5, numeric: 0.5 }), null);
  const given = { analytic: { shape: [3] }, elements: [{ index: [2], analytic: 1, numeric: 2, abs_error: 1, rel_error: 0.5, ok: false }] };
  assert.equal(gradcheckElements("v", given)[0].name, "v[2]");
  // summarised tensors (no data) cannot be listed
  assert.equal(gradcheckElements("x", { analytic: { shape: [2] }, numeric: { shape: [2] } }), null);
});

test("the check's verdict names the leaves that disagree and a kink", () => {
  assert.equal(gradcheckVerdict({ x: KINK_ROW, W: { ok: true } }, "1e-6"),
    "Central differences with h = 1e-6: 1 of 2 leaves disagree with the backward pass: x (at a kink).");
  assert.match(gradcheckVerdict({ a: { ok: true } }, "1e-4"), /^Central differences with h = 1e-4: every leaf agrees/);
});

test("the Jacobian's table: outputs down, inputs across; a wide one transposed", () => {
  const leaves = [{ name: "a", shape: [], size: 1 }, { name: "b", shape: [], size: 1 }];
  const t = jacobianTable({ shape: [4, 2], data: [[3, 1], [5, 2], [7, 3], [9, 4]] }, leaves, "y");
  assert.deepEqual(t.columns, ["a", "b"]);
  assert.deepEqual(t.rows.map((r) => r.label), ["y[0]", "y[1]", "y[2]", "y[3]"]);
  assert.deepEqual(t.rows[3].cells, ["9", "4"]);
  assert.equal(t.transposed, false);
  assert.equal(t.caption, "Jacobian ∂y/∂(a, b), 4×2"); // every input leaf named
  assert.equal(jacobianTable({ shape: [2, 1], data: [[1], [2]] }, leaves.slice(0, 1), "y").caption, "Jacobian ∂y/∂a, 2×1");
  // a 1×20 Jacobian (a gradient) reads down: a line per input element
  const wide = jacobianTable({ shape: [1, 8], data: [[1, 2, 3, 4, 5, 6, 7, 8]] },
    [{ name: "W", shape: [2, 3], size: 6 }, { name: "b", shape: [2], size: 2 }], "L", { rows: 5, columns: 6 });
  assert.equal(wide.transposed, true);
  assert.deepEqual(wide.columns, ["L"]);
  assert.deepEqual(wide.rows.map((r) => r.label), ["W[0, 0]", "W[0, 1]", "W[0, 2]", "W[1, 0]", "W[1, 1]"]);
  assert.deepEqual(wide.rows[4].cells, ["5"]);
  assert.deepEqual(wide.more, { rows: 3, columns: 0 });
  assert.equal(wide.caption, "Jacobian ∂L/∂(W, b), 1×8 (transposed: a line per input), first entries");
});

test("the forward walk's direction as the Done narration names it", () => {
  const leaves = [{ name: "X", shape: [4, 3], size: 12 }, { name: "a", shape: [], size: 1 }];
  const state = { mode: "forward", tangent: "X", tangent_direction: "element", tangent_element: 3, tangent_seed: 1 };
  assert.equal(directionText(state, leaves), "∂/∂X[1, 0]");
  assert.equal(directionText({ ...state, tangent: "" , tangent_element: 0 }, leaves), "∂/∂X[0, 0]");
  assert.equal(directionText({ ...state, tangent: "a" }, leaves), "∂/∂a");
  assert.equal(directionText({ ...state, tangent_direction: "random", tangent_seed: 3 }, leaves), "a random direction in X (seed 3)");
  assert.equal(directionText({ ...state, mode: "reverse" }, leaves), null);
  assert.equal(directionText(state, []), null);
});

test("a bug-lab walk says at Done that its gradients are wrong on purpose", () => {
  assert.equal(bugDoneText(["overwrite"]),
    "BUG LAB (overwrite): these gradients are wrong on purpose — the gradient check flags them.");
  assert.match(bugDoneText(["zero_grad"]), /the fix — these gradients are right/);
  assert.equal(bugDoneText([]), "");
  // the narration at Done, from the stream's done event of the bug-overwrite preset
  const body = golden("bug-overwrite");
  const nodesById = Object.fromEntries(body.graph.nodes.map((n) => [n.id, n]));
  const done = { kind: "done", output: body.output, grads: body.grads, bugs: ["overwrite"] };
  assert.equal(narrate(done, nodesById),
    "BUG LAB (overwrite): these gradients are wrong on purpose — the gradient check flags them. "
    + "Done. dL/da = -0.7864,  dL/db = 1.5729,  dL/dc = 0.4621");
  // forward mode on a `# bugs:` program says the switches apply to reverse mode
  assert.match(forwardBugNote("# bugs: overwrite\na = 1.0\nL = a * a", "forward"), /applies to reverse mode only/);
  assert.equal(forwardBugNote("# bugs: overwrite\na = 1.0\nL = a * a", "reverse"), "");
  assert.equal(forwardBugNote("a = 1.0\nL = a * a", "forward"), "");
});

test("a vector output's Done says its gradient is that of its sum; forward mode names the direction", () => {
  const nodesById = { n5: { id: "n5", label: "y" } };
  const y = { shape: [4], dtype: "float64", data: [3, 5, 7, 9] };
  const done = { kind: "done", output: { name: "y", node: "n5", value: y }, grads: { a: 24, b: 10 }, jvp: y,
    passes: { direction: "∂/∂a" } };
  assert.equal(narrate(done, nodesById),
    "Done. The tangent of y along ∂/∂a (the Jacobian-vector product) = [3, 5, 7, 9]. "
    + "Reverse mode (y seeded with ones, so the gradient of sum y): d(sum y)/da = 24,  d(sum y)/db = 10");
  const scalar = { ...done, output: { name: "L", node: "n9", value: 2.5 }, jvp: 1.5, passes: { direction: "the given tangents" } };
  assert.equal(narrate(scalar, { n9: { label: "L" } }, { direction: "∂/∂W[1, 1]" }),
    "Done. The tangent of L along ∂/∂W[1, 1] (the Jacobian-vector product) = 1.5. Reverse mode: dL/da = 24,  dL/db = 10");
  const reverse = { kind: "done", output: { name: "y", node: "n5", value: y }, grads: { a: 24 } };
  assert.equal(narrate(reverse, nodesById), "Done. Reverse mode (y seeded with ones, so the gradient of sum y): d(sum y)/da = 24");
});

test("forward mode keeps no memory for a backward pass; hvp mode's count never goes negative", () => {
  const forward = golden("seed-tanh-fanout-forward");
  assert.equal(forwardOnly(forward), true);
  assert.equal(forwardOnly(golden("seed-tanh-fanout")), false);
  const hvp = golden("hvp-seed-tanh-fanout");
  assert.equal(forwardOnly(hvp), false);
  const series = ledgerSeries(hvp);
  assert.ok(series.live.every((v) => v >= 0), JSON.stringify(series.live));
  // the same peak as the engine's walk of its ledger (engine/trace/ledger.py)
  assert.equal(series.peak, hvp.ledger.peak_activation_bytes);
  assert.equal(series.peak, 32);
});

test("hvp mode is a program's `# hvp:` line before its first statement", () => {
  assert.equal(hvpLine('# hvp: {"a": 1.0}\na = 1.0\nL = a * a'), true);
  assert.equal(hvpLine('# a comment\n#hvp:{"a": 1}\na = 1.0'), true);
  assert.equal(hvpLine('a = 1.0\n# hvp: {"a": 1.0}\nL = a * a'), false);
  assert.equal(hvpLine("a = 1.0"), false);
});

test("a scalar leaf's check row shows the analytic and numeric values (the bug lab's a)", () => {
  const rows = gradcheckRows({
    a: { max_abs_error: 1.5728954659026066, max_rel_error: 1.9999999999628097, ok: false, eps: 1e-6,
      numeric: 0.7864477329366792, analytic: -0.7864477329659274 },
    x: KINK_ROW,
  });
  assert.deepEqual(rows.map((r) => [r.leaf, r.analytic, r.numeric, r.abs, r.ok]),
    [["a", "-0.7864", "0.7864", "1.5729", false], ["x", "0", "1.5", "1.5", false]]);
  // issue 14: a tensor's analytic and numeric are its worst element's, which the row names
  assert.deepEqual(rows.map((r) => r.at), [null, "x[0, 1]"]);
});

test("hvp mode's Done names each leaf's H v as ∂s/∂x", () => {
  const done = { kind: "done", seq: 44, grads: { a: 0.05958575158234014 }, output: { name: "s" } };
  const hvp = { a: 0.05958575158234014, b: 0.11917150316468028, c: 0.7864477329659274 };
  assert.equal(narrate(done, {}, { hvp }),
    "Done. (H v)_a = ∂s/∂a = 0.0596,  (H v)_b = ∂s/∂b = 0.1192,  (H v)_c = ∂s/∂c = 0.7864");
  assert.equal(narrate(done, {}, {}), "Done. ds/da = 0.0596"); // no hvp: reverse mode's words
});
