import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { narrate } from "../../static/js/narration.js";

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
    "a was broadcast from 2 to 3×2, so its gradient is summed over axis 0: 3×2 → 2");
});

test("done: every leaf's gradient", () => {
  assert.equal(say(15), "Done. dL/da = 0.7864,  dL/db = 1.573,  dL/dc = 0.4621");
});
