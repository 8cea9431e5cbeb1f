// Second order on the page (static/js/second-order.js, issue 9): the panel's H v rows, the
// Hessian's heat-map cells, power iteration's line; the timeline's fold of hvp mode's walk
// (tangent events over the backward graph, then the reverse walk from s) and the walk keeping
// the done event's results. The body is tests/golden/hvp-seed-tanh-fanout.json (the first
// preset, v = (1, 0.5, 0)).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  cellText, cellTitle, eigenText, hasSecondOrder, hessianMap, hvpRows, legendStops, eigenDomain,
} from "../../static/js/second-order.js";
import { createTimeline } from "../../static/js/timeline.js";
import { addEvent, beginWalk } from "../../static/js/walk.js";

const hvp = JSON.parse(readFileSync(new URL("../golden/hvp-seed-tanh-fanout.json", import.meta.url)));
const HESSIAN = {
  leaves: ["a", "b", "c"],
  matrix: [[-0.36343099069179363, 0.8460334845482675, 0.3932238664829637],
    [0.8460334845482675, -1.4537239627671745, 0.7864477329659274],
    [0.3932238664829637, 0.7864477329659274, 0.0]],
  passes: 3,
};

test("the panel is for a trace with hvp, hessian or eigen", () => {
  assert.equal(hasSecondOrder(hvp), true);
  assert.equal(hasSecondOrder({ grads: {} }), false);
  assert.equal(hasSecondOrder(null), false);
  assert.equal(hasSecondOrder({ eigen: { steps: 1 } }), true);
});

test("H v rows: both ways, printed alike", () => {
  const rows = hvpRows(hvp);
  assert.deepEqual(rows.map((r) => [r.leaf, r.reverse, r.forward, r.agree]),
    [["a", "0.0596", "0.0596", true], ["b", "0.1192", "0.1192", true], ["c", "0.7864", "0.7864", true]]);
  assert.equal(rows[0].value, hvp.hvp.a);
  assert.equal(hvpRows({ hvp: { a: 1 } })[0].forward, "");
});

test("the Hessian's cells: one per entry, scaled by the largest |H_ij|", () => {
  const map = hessianMap(HESSIAN, 240);
  assert.equal(map.n, 3);
  assert.equal(map.cell, 80);
  assert.equal(map.cells.length, 9);
  assert.equal(map.maxAbs, 1.4537239627671745);
  assert.deepEqual(map.cells[5], { i: 1, j: 2, v: 0.7864477329659274 });
  assert.equal(cellTitle(HESSIAN, map.cells[1]), "∂²L/∂a∂b = 0.846");
  const odd = hessianMap({ leaves: ["a"], matrix: [["-Infinity"]], passes: 1 }, 240);
  assert.equal(odd.cells[0].v, -Infinity);
});

test("power iteration: the eigenvalue line and the estimates' points", () => {
  assert.equal(eigenText({ steps: 30, value: 7.8237258, estimates: [] }),
    "largest Hessian eigenvalue ≈ 7.8237 after 30 steps of power iteration (v ← Hv / ‖Hv‖)");
  assert.match(eigenText({ steps: 1, value: 0, estimates: [0] }), /after 1 step of/);
  // the chart's axes: steps from 1, the estimates' finite range (a flat line gets a span)
  assert.deepEqual(eigenDomain([1, 3, 2]), { steps: 3, lo: 1, hi: 3 });
  assert.equal(eigenDomain([1]), null);
  assert.deepEqual(eigenDomain([2, "NaN", 4]), { steps: 3, lo: 2, hi: 4 });
  assert.deepEqual(eigenDomain([5, 5]), { steps: 2, lo: 4, hi: 6 });
});

test("hvp mode's walk folds: tangents forward, then ∂s/∂x back to the leaves", () => {
  const events = hvp.events;
  const timeline = createTimeline(events);
  const abar = hvp.graph.nodes.find((n) => n.label === "a\u0304").id;
  const k = events.findIndex((e) => e.kind === "tangent" && e.node === abar);
  const forward = timeline.at(k + 1);
  assert.equal(forward.phase, "forward");
  assert.equal(forward.values[abar], 0.7864477329659274);
  assert.equal(forward.tangents[abar], hvp.hvp_forward_over_reverse.a);
  const end = timeline.at(events.length - 1); // the last accumulate (done carries no numbers)
  assert.equal(end.adjoints.n0, hvp.hvp.a);
  assert.equal(end.adjoints.n1, hvp.hvp.b);
});

test("a walk keeps the done event's second-order results", () => {
  const walk = beginWalk({ version: 1, graph: hvp.graph, ledger: null }, "program");
  for (const ev of hvp.events.slice(0, -1)) addEvent(walk, ev);
  addEvent(walk, { ...hvp.events.at(-1), output: hvp.output, grads: hvp.grads, first_non_finite: null,
    hvp: hvp.hvp, hvp_forward_over_reverse: hvp.hvp_forward_over_reverse, hessian: HESSIAN });
  assert.equal(walk.complete, true);
  assert.deepEqual(walk.trace.hvp, hvp.hvp);
  assert.deepEqual(walk.trace.hessian, HESSIAN);
  assert.equal(walk.trace.seq, undefined);
  assert.equal(walk.trace.kind, undefined);
});

test("the enlarged map's cell numbers fit 5 characters; the legend runs -max|H|, 0, +max|H|", () => {
  assert.deepEqual([0.846, -0.3499, 12.3, -0.0772, 0.073, 99.6, 1234, 0.004, 0, NaN, -Infinity].map(cellText),
    ["0.85", "-0.35", "12", "-0.08", "0.07", "100", "1e3", "4e-3", "0", "NaN", "-∞"]);
  for (const v of [-0.0999, -1.2345, -12.5, -0.0123, 123456]) assert.ok(cellText(v).length <= 5, cellText(v));
  assert.deepEqual(legendStops(2.72372).map((s) => [s.at, s.value, s.text]), [[0, -2.72372, "-2.7237"], [0.5, 0, "0"], [1, 2.72372, "2.7237"]]);
});
