// Heat maps, edge shapes and the detail panel's reading of a trace (heat.js, tensors.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { heatCells, heatColor, heatKind, heatSize, inkOn } from "../../static/js/heat.js";
import { adjointFinalStep, backwardRules, isNonFinite, nonFiniteOf, tableOf } from "../../static/js/tensors.js";
import { boxSize, edgeLabel, layoutGraph } from "../../static/js/layout.js";

const tensor = (shape, data, summary = { min: -1, max: 4, mean: 1 }) => ({ shape, dtype: "float64", summary, data });

test("the diverging scale is centred on 0: white-ish at 0, blue above, red below, NaN black", () => {
  const [r0, g0, b0] = heatColor(0, 2).match(/\d+/g).map(Number);
  assert.ok(r0 > 230 && g0 > 230 && b0 > 230, heatColor(0, 2));
  const [rp, , bp] = heatColor(2, 2).match(/\d+/g).map(Number);
  assert.ok(bp > rp, "positive is blue");
  const [rn, , bn] = heatColor(-2, 2).match(/\d+/g).map(Number);
  assert.ok(rn > bn, "negative is red");
  assert.equal(heatColor(1e9, 2), heatColor(2, 2)); // clamped
  assert.equal(heatColor(Infinity, 2), heatColor(2, 2));
  assert.equal(heatColor(Number.NaN, 2), "rgb(0, 0, 0)");
  assert.equal(heatColor(5, 0), heatColor(0, 1)); // all zeros: the middle
  assert.equal(inkOn(heatColor(2, 2)), "#ffffff");
  assert.equal(inkOn(heatColor(0, 2)), "#000000");
});

test("cells of a matrix, a vector, and a summary-only tensor", () => {
  const m = heatCells(tensor([2, 2], [[1, -2], ["NaN", 0.5]]));
  assert.equal(m.complete, true);
  assert.deepEqual(m.cells.map((c) => [c.i, c.j]), [[0, 0], [0, 1], [1, 0], [1, 1]]);
  assert.ok(Number.isNaN(m.cells[2].v));
  assert.equal(m.maxAbs, 2); // NaN left out of the scale
  assert.deepEqual(heatCells(tensor([3], [1, 2, 3])).cells.map((c) => [c.i, c.j, c.v]), [[0, 0, 1], [0, 1, 2], [0, 2, 3]]);
  const s = heatCells(tensor([10, 10], null, { min: -3, max: 5, mean: 0.5, norm: 9 }));
  assert.equal(s.complete, false);
  assert.deepEqual(s.cells.map((c) => [c.stat, c.v]), [["min", -3], ["max", 5], ["mean", 0.5]]);
  assert.equal(heatCells(1.5).cells.length, 0);
});

test("heat map sizes: one line per matrix row, squeezed to fit, a badge from rank 3", () => {
  assert.equal(heatKind([]), "none");
  assert.equal(heatKind([3, 2, 2]), "badge");
  assert.deepEqual(heatSize([4, 2], 96), { kind: "grid", width: 44, height: 88, cell: 22, rowCell: 22, colCell: 22, rows: 4, cols: 2 });
  // a long tensor (the spirals' 300 points) is at most HEAT.width tall, not 900 px
  const long = heatSize([300, 2], 72);
  assert.equal(long.height, 168);
  assert.equal(long.cell, 3);
  assert.ok(Math.abs(long.rowCell - 0.56) < 1e-9);
  assert.equal(heatSize([300], 24).width, 168); // and a long vector is at most as wide
  assert.equal(heatSize([10, 10], 72).cell, 7);
  assert.equal(heatSize([2, 3, 4], 72).text, "2×3×4");
  // The box makes room for it.
  const node = { id: "n0", label: "X", role: "leaf", op: "leaf", shape: [4, 2] };
  const plain = { ...node, shape: [] };
  assert.ok(boxSize(node).width > boxSize(plain).width);
  assert.equal(boxSize(node).heat.width, 44);
});

test("edges of tensors carry their shape; scalar edges carry none", () => {
  assert.equal(edgeLabel([4, 3]), "(4,3)");
  assert.equal(edgeLabel([2]), "(2,)");
  assert.equal(edgeLabel([]), null);
  const graph = {
    nodes: [{ id: "n0", label: "X", role: "leaf", op: "leaf", shape: [4, 3] },
      { id: "n1", label: "a", role: "leaf", op: "leaf", shape: [] },
      { id: "n2", label: "X * a", role: "op", op: "mul", shape: [4, 3] }],
    edges: [{ id: "n0->n2#0", source: "n0", target: "n2", arg: 0 }, { id: "n1->n2#1", source: "n1", target: "n2", arg: 1 }],
  };
  const layout = layoutGraph(graph);
  const [e0, e1] = layout.edges;
  assert.equal(e0.label.text, "(4,3)");
  assert.ok(Number.isFinite(e0.label.x) && Number.isFinite(e0.label.y));
  assert.equal(e1.label, null);
});

// A hand-made trace: b (2,) broadcast over X (2,2) in X + b, then summed.
const events = [
  { kind: "evaluate", seq: 0, node: "n0", value: tensor([2, 2], [[1, 2], [3, 4]]) },
  { kind: "evaluate", seq: 1, node: "n1", value: tensor([2], [1, "NaN"], { min: "NaN", max: "NaN", mean: "NaN" }) },
  { kind: "evaluate", seq: 2, node: "n2", value: tensor([2, 2], [[2, "NaN"], [4, "NaN"]], { min: "NaN", max: "NaN", mean: "NaN" }) },
  { kind: "seed", seq: 3, node: "n2", adjoint: tensor([2, 2], [[1, 1], [1, 1]]) },
  { kind: "accumulate", seq: 4, node: "n2", input: "n0", arg: 0, narration: "X̄ += …, shapes 2×2 = 2×2 ⊙ 2×2", adjoint_after: tensor([2, 2], [[1, 1], [1, 1]]) },
  { kind: "unbroadcast", seq: 5, node: "n2", input: "n1", arg: 1, axes: [0], from_shape: [2, 2], to_shape: [2] },
  { kind: "accumulate", seq: 6, node: "n2", input: "n1", arg: 1, narration: "b̄ += …", adjoint_after: tensor([2], [2, 2]) },
  { kind: "done", seq: 7, output: {}, grads: {}, first_non_finite: { node: "n1", phase: "forward", why: "x" } },
];

test("the detail panel's reading: final adjoint step, rules with summed axes, tables", () => {
  assert.equal(adjointFinalStep(events, "n1"), 7);
  assert.equal(adjointFinalStep(events, "n2"), 4); // the seed
  assert.equal(adjointFinalStep(events, "n9"), null);
  const rules = backwardRules(events, "n2");
  assert.deepEqual(rules.map((r) => [r.input, r.step]), [["n0", 5], ["n1", 7]]);
  assert.equal(rules[0].unbroadcast, null);
  assert.deepEqual(rules[1].unbroadcast, { axes: [0], from_shape: [2, 2], to_shape: [2] });
  const t = tableOf(tensor([2, 2], [[1, 2], [3, 4]]));
  assert.deepEqual(t.rows, [[1, 2], [3, 4]]);
  assert.deepEqual(t.rowHeads, ["0", "1"]);
  const cube = tableOf(tensor([2, 2, 2], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]));
  assert.deepEqual(cube.rowHeads, ["0,0", "0,1", "1,0", "1,1"]);
  const cut = tableOf(tensor([3, 3], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]), 4);
  assert.equal(cut.shown, 4);
  assert.equal(cut.total, 9);
  assert.equal(tableOf(tensor([100, 100], null)), null);
  assert.deepEqual(tableOf(2.5).rows, [[2.5]]);
});

test("the first non-finite number: named by the done event, found at its step", () => {
  assert.equal(isNonFinite("NaN"), true);
  assert.equal(isNonFinite(1), false);
  assert.equal(isNonFinite(tensor([2], [1, 2])), false);
  assert.equal(isNonFinite(tensor([2], null, { min: 0, max: "Infinity" })), true);
  const bad = nonFiniteOf({ events });
  assert.deepEqual(bad, { node: "n1", phase: "forward", why: "x", step: 2 });
  assert.equal(nonFiniteOf({ events: events.slice(0, 7) }), null);
});
