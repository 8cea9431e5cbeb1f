// Numbers a student sees (issue 14, section 4), page side: no negative zero from any
// formatter, every leaf's box holds its gradient at Done (the detach preset's b), and an
// underflow is marked at its event as a NaN is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { boxLines, formatNumber, formatSummary, formatValue, tensorRows } from "../../static/js/format.js";
import { cellText } from "../../static/js/second-order.js";
import { dualText, formatError, gradcheckRows, tangentLine } from "../../static/js/modes.js";
import { createTimeline, fold } from "../../static/js/timeline.js";
import { withLeafAdjoints } from "../../static/js/walk.js";
import { badNumberText, nonFiniteOf } from "../../static/js/tensors.js";
import { narrate } from "../../static/js/narration.js";

const NEGATIVE_ZERO = /(?<![\w.])-0(?:\.0+)?(?![\w.])/; // "-0", "-0.0000"; not -0.5 or 1e-05

test("the pattern finds negative zeros only", () => {
  assert.ok(NEGATIVE_ZERO.test("L = -0") && NEGATIVE_ZERO.test("[-0.0000, 1]"));
  assert.ok(!NEGATIVE_ZERO.test("-0.5 1e-05 -0.0001 x-0 [0, -1]"));
});

test("no formatter prints a negative zero", () => {
  const zeros = [-0, -1e-320 * 1e-10, -4e-5 * 1e-300];
  const tensor = { shape: [3], dtype: "float64", summary: { min: -0, max: -0, mean: -0 }, data: [-0, 0, -0] };
  const shown = [
    ...zeros.flatMap((z) => [formatNumber(z), cellText(z), formatError(z), dualText(z, z), tangentLine(z)]),
    formatValue(tensor), ...boxLines(tensor, 1), ...tensorRows(tensor), formatSummary(tensor.summary),
    ...gradcheckRows({ x: { analytic: -0, numeric: -0, max_abs_error: -0, max_rel_error: -0, ok: true } })
      .flatMap((r) => [r.analytic, r.numeric, r.abs, r.rel]),
  ];
  for (const text of shown) assert.ok(!NEGATIVE_ZERO.test(text), text);
  assert.equal(formatNumber(-0), "0");
  assert.equal(formatNumber(-4.248e-18), "-4.248e-18"); // a tiny negative number keeps its sign
});

// The detach preset's shape: b's path is cut, so the walk sends b nothing; Done says dL/db = 0.
const graph = { nodes: [
  { id: "n0", name: "a", role: "leaf" }, { id: "n1", name: "b", role: "leaf" },
  { id: "n2", name: "L", role: "op" }], edges: [] };
const events = [
  { seq: 0, kind: "evaluate", node: "n0", value: 1 },
  { seq: 1, kind: "evaluate", node: "n1", value: -0.5 },
  { seq: 2, kind: "evaluate", node: "n2", value: 1 },
  { seq: 3, kind: "seed", node: "n2", adjoint: 1 },
  { seq: 4, kind: "accumulate", node: "n2", input: "n0", arg: 0, adjoint_after: 1.5729 },
  withLeafAdjoints({ seq: 5, kind: "done", grads: { a: 1.5729, b: 0 } }, graph),
];

test("at Done every leaf's box holds the gradient the narration names", () => {
  const timeline = createTimeline(events);
  const done = timeline.at(6);
  assert.equal(done.adjoints.n1, 0); // was blank: the walk never reached b
  assert.equal(done.adjoints.n0, 1.5729); // a's own, from its accumulate event
  assert.deepEqual(done, fold(events));
  assert.equal("n1" in timeline.at(5).adjoints, false); // before Done: no gradient yet
  // stepping back from Done by undo (the live view) takes it away again
  assert.equal(timeline.view(6).adjoints.n1, 0);
  assert.equal("n1" in timeline.view(5).adjoints, false);
});

test("forward mode's Done fills no gradient boxes", () => {
  const forward = [events[0], events[1], events[2], events[5]];
  assert.deepEqual(createTimeline(forward).at(4).adjoints, {});
});

test("an underflow is marked at its event's step, and said as not exact", () => {
  const trace = { events, first_non_finite: { node: "n0", phase: "backward", kind: "underflow", seq: 4, why: "underflow: below 2.2e-308, the float64 limit" } };
  const bad = nonFiniteOf(trace);
  assert.equal(bad.step, 5);
  assert.equal(badNumberText(bad), "first underflowed gradient (not exact)");
  assert.equal(badNumberText({ phase: "forward" }), "first non-finite value");
});

test("Done says the gradients are not exact after an underflow", () => {
  const why = "underflow: below 2.2e-308, the float64 limit";
  const done = { kind: "done", output: { name: "x125", value: 0.5 }, grads: { x0: 0 },
    first_non_finite: { node: "n18", phase: "backward", kind: "underflow", seq: 614, why } };
  assert.equal(narrate(done, {}), "Done. dx125/dx0 = 0 (not exact: a number underflowed, below 2.2e-308, the float64 limit)");
  assert.equal(narrate({ ...done, first_non_finite: null }, {}), "Done. dx125/dx0 = 0");
});
