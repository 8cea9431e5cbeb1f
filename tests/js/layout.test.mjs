import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { boxSize, layoutGraph, opTag, valueRows } from "../../static/js/layout.js";

const trace = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));

test("left to right: every edge goes from an input on the left to its consumer", () => {
  const layout = layoutGraph(trace.graph);
  const at = Object.fromEntries(layout.nodes.map((n) => [n.id, n]));
  for (const edge of layout.edges) {
    assert.ok(at[edge.source].x < at[edge.target].x, edge.id);
    assert.ok(edge.points.length >= 2);
  }
  const output = at[trace.output.node];
  assert.equal(Math.max(...layout.nodes.map((n) => n.x)), output.x);
});

test("the layout is deterministic: same graph, same positions", () => {
  assert.deepEqual(layoutGraph(trace.graph), layoutGraph(trace.graph));
});

test("a * a keeps both edges", () => {
  const node = (id, op, role, inputs) => ({ id, label: id, op, role, inputs, shape: [] });
  const graph = {
    nodes: [node("n0", "leaf", "leaf", []), node("n1", "mul", "op", ["n0", "n0"])],
    edges: [
      { id: "n0->n1#0", source: "n0", target: "n1", arg: 0 },
      { id: "n0->n1#1", source: "n0", target: "n1", arg: 1 },
    ],
  };
  const layout = layoutGraph(graph);
  assert.deepEqual(layout.edges.map((e) => e.id), ["n0->n1#0", "n0->n1#1"]);
});

test("boxes are sized for what they will show", () => {
  const scalar = { label: "w1 * x", op: "mul", role: "op", shape: [] };
  const matrix = { label: "Y", op: "matmul", role: "op", shape: [2, 2] };
  const big = { label: "H", op: "tanh", role: "op", shape: [100, 10] };
  const constant = { label: "2", op: "const", role: "const", shape: [] };
  assert.equal(valueRows([]), 1);
  assert.equal(valueRows([2, 2]), 2);
  assert.equal(valueRows([100, 10]), 3); // min, max, mean
  assert.ok(boxSize(matrix).height > boxSize(scalar).height);
  assert.ok(boxSize(constant).height < boxSize(scalar).height); // no grad block
  assert.ok(boxSize(big).width > boxSize(scalar).width);
  assert.equal(opTag(scalar), "×");
  assert.equal(opTag(matrix), "@ · 2×2");
  assert.equal(opTag(constant), "const");
});
