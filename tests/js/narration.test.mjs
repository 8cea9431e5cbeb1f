import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { calloutOf, narrate, undrawnMessage } from "../../static/js/narration.js";

const trace = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));
const nodesById = Object.fromEntries(trace.graph.nodes.map((n) => [n.id, n]));
const say = (k) => narrate(trace.events[k], nodesById);

test("before the first step the line says how to start", () => {
  assert.match(narrate(null, nodesById), /forward/);
});

test("evaluate: the node's formula and its value", () => {
  assert.equal(say(3), "e = a * b = -0.5");
  const unnamed = { id: "n6", label: "w1 * x", role: "op", formula: "w1 * x" };
  assert.equal(narrate({ kind: "evaluate", node: "n6", value: 1 }, { n6: unnamed }), "w1 * x = 1");
  assert.equal(say(0), "input a = 1");
  const constant = { id: "n9", label: "2", role: "const", formula: "2" };
  assert.equal(narrate({ kind: "evaluate", node: "n9", value: 2 }, { n9: constant }), "constant 2 = 2");
});

test("seed: L-bar = 1", () => {
  assert.ok(say(7).startsWith("L̄ = 1 (dL/dL)"));
});

test("accumulate: the engine's narration, verbatim", () => {
  for (const k of [8, 12, 13]) assert.equal(say(k), trace.events[k].narration);
});

test("unbroadcast: the axes and the shapes", () => {
  const ev = { kind: "unbroadcast", node: "n4", input: "n0", arg: 1, from_shape: [3, 2],
    to_shape: [2], axes: [0], before: null, after: null };
  assert.equal(narrate(ev, nodesById),
    "a was broadcast from 2-vector to 3×2, so its gradient is summed over axis 0: 3×2 → 2-vector");
});

test("done: every leaf's gradient, printed as the engine prints numbers", () => {
  assert.equal(say(15), "Done. dL/da = 0.7864,  dL/db = 1.5729,  dL/dc = 0.4621");
});

test("the += callout uses the numbers of the engine's narration", () => {
  const ev = trace.events[12]; // d = e + a: a-bar += 1.5729, its first contribution
  assert.deepEqual(calloutOf(ev), { id: "n0", lines: ["+= 1.5729", "(0 → 1.5729)"] });
  assert.ok(ev.narration.includes("1.5729"));
  assert.deepEqual(calloutOf(trace.events[13]).lines, ["+= -0.7864", "(1.5729 → 0.7864)"]);
  assert.equal(calloutOf(trace.events[3]), null); // evaluate: no callout
});

test("a tensor's += callout puts the old and the new adjoint on lines of their own", () => {
  // review of issue 7: "(4×4 · min 0 · … → 4×4 · min -6.4433 · …)" on one line was as wide
  // as three boxes and covered the attention head's "2.0" node
  const summary = (min, max, mean) => ({ shape: [4, 4], dtype: "float64", data: null, summary: { min, max, mean, norm: 1 } });
  const note = calloutOf({ kind: "accumulate", input: "n5", contribution: summary(-6.4433, 9.4543, 0.0854),
    adjoint_before: summary(-1, 0, -0.5), adjoint_after: summary(-7.4433, 9.4543, -0.41) });
  assert.equal(note.lines.length, 3);
  assert.match(note.lines[0], /^\+= 4×4 matrix · min -6.4433/);
  assert.match(note.lines[1], /^was 4×4 matrix · min -1/);
  assert.match(note.lines[2], /^now 4×4 matrix · min -7.4433/);
  // 55 characters with the shape named (format.js shapeName: "4×4" alone read as a product)
  assert.ok(Math.max(...note.lines.map((l) => l.length)) <= 55, note.lines);
  // Its first gradient (zeros before): two lines, not "was" zeros and "now" the += line again
  // (was three: mlp-classifier's step 14 did not fit a 1024x768 projector's graph band at 14 px)
  const first = calloutOf({ kind: "accumulate", input: "n5", contribution: summary(-6.4433, 9.4543, 0.0854),
    adjoint_before: summary(0, 0, 0), adjoint_after: summary(-6.4433, 9.4543, 0.0854) });
  assert.deepEqual(first.lines, ["+= 4×4 matrix · min -6.4433 · max 9.4543 · mean 0.0854", "(was 0)"]);
});

test("a graph not drawn: how big, its predicted layout time, and the results all the same", () => {
  const plan = { layout: null, reason: "too_large", nodes: 3999, cost: { ms: 20_788 }, budget: 4000 };
  const chain = { output: { name: "x", node: "n3998", value: 1.2212684181660085 },
    grads: { x: 1.2212684181660085 }, events: new Array(6000),
    graph: { nodes: [{ id: "n3998", label: "x⁽¹⁹⁹⁹⁾" }] } };
  assert.equal(undrawnMessage(plan, chain),
    "This graph has 3,999 nodes; laying it out would take about 21 s, past the page's budget of 4 s, "
    + "so it opens as an overview. " +
    "The trace was computed: output x⁽¹⁹⁹⁹⁾ = 1.2213; dx⁽¹⁹⁹⁹⁾/dx = 1.2213. " +
    "The player and the narration below still step through all 6,000 events.");
  const deep = undrawnMessage({ ...plan, reason: "too_deep", cost: { depth: 2000 }, maxDepth: 800 }, chain);
  assert.ok(deep.startsWith("This graph has 3,999 nodes in 2,000 ranks; the layout handles at most 800 ranks, "
    + "so it opens as an overview. The trace was computed"), deep);
  const failed = undrawnMessage({ ...plan, reason: "layout_failed", message: "Maximum call stack size exceeded" }, trace);
  assert.match(failed, /^The layout of this graph \(3,999 nodes\) failed \(Maximum call stack size exceeded\)/);
  assert.match(failed, /output L = 0\.9242; dL\/da = 0\.7864, dL\/db = 1\.5729, dL\/dc = 0\.4621\./);
  assert.doesNotMatch(failed, /network/i);
  const grads = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`w${i}`, i]));
  assert.match(undrawnMessage(plan, { ...chain, grads }), /dx⁽¹⁹⁹⁹⁾\/dw5 = 5, and 4 more\./);
});

test("the bug lab's overwrite shows `=` and the value it lost, not `+=`", () => {
  const event = { kind: "accumulate", bug: "overwrite", input: "n0", contribution: -0.786, adjoint_before: 1.573, adjoint_after: -0.786 };
  assert.deepEqual(calloutOf(event), { id: "n0", lines: ["= -0.786", "(1.573 lost)"] });
});

test("step 0 says how to step: a key on a desktop, a swipe or Next with a finger (issue 17 §2)", () => {
  assert.equal(narrate(null, {}), "Step forward (→) to run the forward pass, one node at a time.");
  assert.equal(narrate(null, {}, { touch: true }), "Swipe or tap Next to run the forward pass, one node at a time.");
});
