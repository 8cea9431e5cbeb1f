import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  boxSize, calloutSize, calloutAnchor, chipOf, layoutGraph, LAYOUT_BUDGET_MS, MAX_LAYOUT_DEPTH, opTag, predictLayout, referenceNodes, placeCallout, planLayout, valueRows,
  widestLines,
} from "../../static/js/layout.js";
import { calloutOf } from "../../static/js/narration.js";

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

test("upright (a portrait phone or tablet): top to bottom, narrower than tall, the output at the foot", () => {
  const flat = layoutGraph(trace.graph);
  const layout = layoutGraph(trace.graph, { upright: true });
  assert.equal(layout.rankdir, "TB");
  assert.equal(flat.rankdir, "LR");
  const at = Object.fromEntries(layout.nodes.map((n) => [n.id, n]));
  for (const edge of layout.edges) assert.ok(at[edge.source].y < at[edge.target].y, edge.id);
  assert.equal(Math.max(...layout.nodes.map((n) => n.y)), at[trace.output.node].y);
  // the tanh example: 5 ranks, at most 2 boxes a rank: under half as wide as left to right
  assert.ok(layout.height > layout.width, `${layout.width} x ${layout.height}`);
  assert.ok(layout.width < flat.width / 2, `${layout.width} vs ${flat.width}`);
});

test("upright is as narrow as its boxes allow: the tanh example in 2 columns (polish17: 3.5, c cut on a 390 px phone)", () => {
  const layout = layoutGraph(trace.graph, { upright: true });
  const columns = new Set(layout.nodes.map((n) => Math.round(n.x)));
  assert.equal(columns.size, 2, JSON.stringify([...columns]));
  const box = Math.max(...layout.nodes.map((n) => n.width));
  assert.ok(layout.width <= 2 * box + 28 + 2 * 24 + 1, `${layout.width}`); // 2 boxes, nodesep, margins
  // still top to bottom, every edge downwards
  const at = Object.fromEntries(layout.nodes.map((n) => [n.id, n]));
  for (const edge of layout.edges) assert.ok(at[edge.source].y < at[edge.target].y, edge.id);
});

test("upright keeps left to right where chips are drawn (left of their consumer)", () => {
  const node = (id, op, role, inputs) => ({ id, label: id, op, role, inputs, shape: [] });
  const graph = {
    nodes: [node("n0", "leaf", "leaf", []), node("n1", "neg", "op", ["n0"])],
    edges: [{ id: "n0->n1#0", source: "n0", target: "n1", arg: 0 }],
  };
  assert.equal(layoutGraph(graph, { upright: true, refs: { n0: 40 } }).rankdir, "LR");
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
  // the backward graph's engine rows (engine/ops/masked.py) say what they are, not their names
  assert.equal(opTag({ role: "op", op: "pow_vjp_exponent" }), "vjp ** exponent");
  assert.equal(opTag({ role: "op", op: "pow_vjp_base", shape: [3] }), "vjp ** base · 3");
  assert.equal(opTag({ role: "op", op: "leaky_relu_vjp" }), "vjp leaky_relu");
  // one row per argument (issue 14 §4): which input it is the vjp for
  assert.equal(opTag({ role: "op", op: "maximum_vjp0" }), "vjp maximum 1st");
  assert.equal(opTag({ role: "op", op: "where_vjp2" }), "vjp where 3rd");
  assert.equal(opTag({ role: "op", op: "max_vjp", shape: [2, 3] }), "vjp max · 2×3");
  assert.equal(opTag(constant), "const");
});

// ---------------------------------------------------------------- big graphs

/** `x = 1.0` then `x = x * 1.0001` (lines - 1 times), as the engine builds it: 2 * lines - 1 nodes. */
function chainGraph(lines) {
  const nodes = [{ id: "n0", label: "x", op: "leaf", role: "leaf", shape: [] }];
  const edges = [];
  for (let i = 1; i < lines; i++) {
    const c = `n${2 * i - 1}`, x = `n${2 * i}`, prev = `n${2 * i - 2}`;
    nodes.push({ id: c, label: "1.0001", op: "const", role: "const", shape: [] });
    nodes.push({ id: x, label: `x${i}`, op: "mul", role: "op", shape: [] });
    edges.push({ id: `${prev}->${x}#0`, source: prev, target: x, arg: 0 });
    edges.push({ id: `${c}->${x}#1`, source: c, target: x, arg: 1 });
  }
  return { nodes, edges };
}

test("a graph predicted to take past the budget is not laid out, and planLayout says so instead of throwing", () => {
  const graph = chainGraph(2000); // 3,999 nodes: dagre would overflow the stack
  const plan = planLayout(graph, []);
  assert.equal(plan.layout, null);
  assert.equal(plan.reason, "too_large");
  assert.equal(plan.nodes, 3999);
  assert.equal(plan.budget, LAYOUT_BUDGET_MS);
  assert.ok(plan.cost.ms > LAYOUT_BUDGET_MS, JSON.stringify(plan.cost));
});

test("a graph deeper than dagre's recursion can go in a worker is not tried", () => {
  const nodes = [];
  const edges = [];
  for (let i = 0; i < 1000; i++) {  // cheap (no long edge), but 1,000 ranks deep
    nodes.push({ id: `n${i}`, label: `x${i}`, op: "tanh", role: i ? "op" : "leaf", shape: [] });
    if (i) edges.push({ id: `n${i - 1}->n${i}#0`, source: `n${i - 1}`, target: `n${i}`, arg: 0 });
  }
  const plan = planLayout({ nodes, edges }, []);
  assert.equal(plan.cost.depth, 1000);
  assert.ok(plan.cost.ms < LAYOUT_BUDGET_MS);
  assert.equal(plan.reason, "too_deep");
  assert.equal(plan.maxDepth, MAX_LAYOUT_DEPTH);
  assert.equal(planLayout(chainGraph(300), []).cost.depth, 300); // x and its constant share ranks
});

/** `x = 1.5`, `L = x * 1 + x * 2 + ... + x * n`: x feeds n products, summed in a chain. */
function fanInGraph(n) {
  const nodes = [{ id: "x", label: "x", op: "leaf", role: "leaf", shape: [] }];
  const edges = [];
  let sum = null;
  for (let i = 1; i <= n; i++) {
    nodes.push({ id: `c${i}`, label: String(i), op: "const", role: "const", shape: [] });
    nodes.push({ id: `m${i}`, label: `x * ${i}`, op: "mul", role: "op", shape: [] });
    edges.push({ id: `x->m${i}#0`, source: "x", target: `m${i}`, arg: 0 });
    edges.push({ id: `c${i}->m${i}#1`, source: `c${i}`, target: `m${i}`, arg: 1 });
    if (sum) {
      nodes.push({ id: `s${i}`, label: `+${i}`, op: "add", role: "op", shape: [] });
      edges.push({ id: `${sum}->s${i}#0`, source: sum, target: `s${i}`, arg: 0 });
      edges.push({ id: `m${i}->s${i}#1`, source: `m${i}`, target: `s${i}`, arg: 1 });
      sum = `s${i}`;
    } else sum = `m${i}`;
  }
  return { nodes, edges };
}

test("the cost counts the ranks long edges cross, not only the nodes", () => {
  const fan = fanInGraph(50); // 150 nodes; x's edges reach across up to 50 ranks
  const withLongEdges = predictLayout(fan);
  const chain = predictLayout(chainGraph(75)); // about as many nodes, no long edge
  assert.equal(chain.dummies, 0);
  assert.ok(withLongEdges.dummies > 1000, JSON.stringify(withLongEdges));
  assert.ok(withLongEdges.ms > 5 * chain.ms);
});

test("a shared weight's uses count the edges a collapsed box's merged edge stands for", () => {
  // w feeds six drawn consumers: two nodes and four boxes, each box's edge merging 100.
  const nodes = [{ id: "w", role: "leaf" }, ...["a", "b", "g1", "g2", "g3", "g4"].map((id) => ({ id, role: "op" }))];
  const edges = [
    { id: "w->a#0", source: "w", target: "a" }, { id: "w->b#0", source: "w", target: "b" },
    ...[1, 2, 3, 4].map((i) => ({ id: `w->g${i}#g`, source: "w", target: `g${i}`, members: Array.from({ length: 100 }, (_, k) => `e${i}.${k}`) })),
  ];
  assert.deepEqual(referenceNodes({ nodes, edges }), { w: 402 });
  // The threshold is still on the drawn edges: two boxes of 100 are two chips' worth.
  assert.deepEqual(referenceNodes({ nodes, edges: edges.slice(0, 4) }), {});
});

test("a leaf used by many consumers becomes reference chips, and the long edges go", () => {
  const fan = fanInGraph(50);
  const refs = referenceNodes(fan);
  assert.deepEqual(refs, { x: 50 }); // the constants have one use each
  assert.equal(predictLayout(fan, { refs }).dummies, 0);
  const plan = planLayout(fan, []);
  assert.ok(plan.layout, plan.message);
  const { layout } = plan;
  assert.equal(layout.chips.length, 50);
  assert.equal(layout.edges.length, fan.edges.length - 50); // no laid-out edge from x
  const chip = chipOf(layout, "x->m7#0");
  assert.deepEqual([chip.ref, chip.consumer, chip.uses, chip.label], ["x", "m7", 50, "x"]);
  const consumer = layout.nodes.find((n) => n.id === "m7");
  assert.ok(chip.x + chip.width / 2 < consumer.x - consumer.width / 2, "left of its consumer");
  assert.ok(Math.abs(chip.y - consumer.y) < consumer.height / 2, "beside it");
  // The += of x's adjoint hangs on the chip of the edge it arrives along.
  const ev = { kind: "accumulate", node: "m7", input: "x", arg: 0 };
  assert.equal(calloutAnchor(layout, ev), chip);
  assert.equal(calloutAnchor(layout, { ...ev, input: "c7", arg: 1 }), null);
  assert.ok(referenceNodes(fan, { fanout: 50 }).x === undefined); // the threshold is "more than"
});

test("a layout that throws becomes a reason, with the error's message", () => {
  const failing = () => { throw new RangeError("Maximum call stack size exceeded"); };
  const plan = planLayout(trace.graph, trace.events, { engine: failing });
  assert.equal(plan.layout, null);
  assert.equal(plan.reason, "layout_failed");
  assert.equal(plan.message, "Maximum call stack size exceeded");
  assert.equal(plan.nodes, trace.graph.nodes.length);
});

test("a 600-node chain is under the budget and lays out", () => {
  const plan = planLayout(chainGraph(300), []); // 599 nodes
  assert.ok(plan.layout, plan.message);
  assert.equal(plan.layout.nodes.length, 599);
});

// ---------------------------------------------------------------- boxes sized for their numbers

test("boxes are as wide as the numbers the trace will put in them", () => {
  const node = { label: "x", op: "mul", role: "op", shape: [] };
  const graph = { nodes: [{ id: "n0", ...node }], edges: [] };
  const events = [
    { kind: "evaluate", node: "n0", value: -12345.6789 }, // "-12345.6789": 11 characters
    { kind: "seed", node: "n0", adjoint: 1 },
  ];
  assert.deepEqual(widestLines(graph, events), { n0: 11 });
  assert.ok(boxSize(node, 11).width > boxSize(node).width);
  assert.equal(boxSize(node, 3).width, boxSize(node).width); // short numbers keep the usual width
  const widths = widestLines(trace.graph, trace.events);
  assert.equal(widths.n0, "0.7864".length); // a: value 1, grad 1.5729 then 0.7864
});

// ---------------------------------------------------------------- callouts

const rect = (c, size) => ({ x0: c.x - size.width / 2, x1: c.x + size.width / 2, y0: c.y - size.height / 2, y1: c.y + size.height / 2 });
const boxRect = (n) => ({ x0: n.x - n.width / 2, x1: n.x + n.width / 2, y0: n.y - n.height / 2, y1: n.y + n.height / 2 });
const overlaps = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

test("the += callout never covers another node (the sigmoid example, every backward step)", () => {
  const sigmoid = JSON.parse(readFileSync(new URL("./fixtures/sigmoid-net.json", import.meta.url)));
  const { layout } = planLayout(sigmoid.graph, sigmoid.events);
  let checked = 0;
  for (const event of sigmoid.events) {
    const note = calloutOf(event);
    if (!note) continue;
    const size = calloutSize(note.lines);
    const at = placeCallout(layout, note.id, size);
    for (const other of layout.nodes.filter((n) => n.id !== note.id)) {
      assert.ok(!overlaps(rect(at, size), boxRect(other)), `seq ${event.seq}: covers ${other.node.label}`);
    }
    checked += 1;
  }
  assert.ok(checked >= 10);
});

test("a callout goes above its node when that is free, else below", () => {
  const box = (id, x, y) => ({ id, x, y, width: 200, height: 100 });
  const size = { width: 180, height: 30 };
  const alone = { nodes: [box("a", 300, 200)], width: 600, height: 400 };
  assert.ok(placeCallout(alone, "a", size).y < 150);
  const crowded = { nodes: [box("a", 300, 200), box("b", 300, 90)], width: 600, height: 400 };
  const at = placeCallout(crowded, "a", size);
  assert.ok(at.y > 250, JSON.stringify(at));
  assert.equal(placeCallout(alone, "missing", size), null);
});

test("a top node's callout goes above it, inside the drawing, never over its own numbers", () => {
  const leaf = (id) => ({ id, label: id, op: "leaf", role: "leaf", shape: [] });
  const graph = {
    nodes: [leaf("n0"), leaf("n1"), { id: "n2", label: "c", op: "add", role: "op", shape: [] }],
    edges: [{ id: "n0->n2#0", source: "n0", target: "n2", arg: 0 }, { id: "n1->n2#1", source: "n1", target: "n2", arg: 1 }],
  };
  const layout = layoutGraph(graph);
  const [a, b] = layout.nodes; // two leaves in one column: b right below a
  const topNode = a.y < b.y ? a : b;
  const size = calloutSize(["+= -0.0199", "(0 → -0.0199)"]);
  const at = placeCallout(layout, topNode.id, size);
  assert.ok(at.y + size.height / 2 <= topNode.y - topNode.height / 2, "above the node");
  assert.ok(at.y - size.height / 2 >= -16, "inside the fitted view");
});
