// Edit and diff without the DOM (static/js/diff.js): the tanh fan-out example against the
// same program with a = 1.001 (fixtures/tanh-fanout-a1001.json, the engine's answer to
// POST /api/trace, as fixtures/tanh-fanout.json is for a = 1.0).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { change, diffRuns, finalNumbers, firstOrder, strengths } from "../../static/js/diff.js";

const read = (name) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const before = read("tanh-fanout.json");
const after = read("tanh-fanout-a1001.json");
const A_BAR = 0.7864477329659274;

test("a run's final numbers: values, and adjoints after every contribution", () => {
  const { values, adjoints } = finalNumbers(before);
  assert.equal(values.n6, 0.9242343145200195);
  assert.equal(adjoints.n0, A_BAR); // both contributions, not the first (1.5729)
  assert.equal(adjoints.n6, 1); // the seed
  assert.equal(adjoints.n2, 0.46211715726000974);
});

test("nudging a by 0.001 moves L by about 0.001 · ā, and every node downstream changes", () => {
  const { rows, gone } = diffRuns(before, after);
  assert.deepEqual(gone, []);
  const byLabel = Object.fromEntries(rows.map((r) => [r.label, r]));
  const dL = byLabel.L.value.delta;
  assert.equal(dL, 0.9250205805139601 - 0.9242343145200195);
  assert.ok(Math.abs(dL - 0.001 * A_BAR) < 1e-3 * 0.001 * A_BAR * 10, `${dL} vs ${0.001 * A_BAR}`); // O(h²) off
  assert.equal(byLabel.a.value.delta, 1.001 - 1.0);
  assert.equal(byLabel.b.value.changed, false); // b's value is the same...
  assert.equal(byLabel.b.adjoint.changed, true); // ...but its gradient b̄ = a · ē changed
  assert.equal(byLabel.c.value.changed, false);
  assert.deepEqual(rows.filter((r) => !r.changed).map((r) => r.label), []); // L̄ = 1 both times, but L's value moved
  assert.equal(byLabel.L.adjoint.changed, false);
});

test("a change's colour strength grows with its relative size", () => {
  const { rows } = diffRuns(before, after);
  const t = strengths(rows);
  const byLabel = Object.fromEntries(rows.map((r) => [r.label, r.id]));
  assert.equal(t[byLabel.a], 1); // 1e-3 relative, the largest (with e and d)
  assert.ok(Math.abs(t[byLabel.L] - (0.15 + 0.85 * (0.0007862659939406047 / 0.9242343145200195) / 0.001)) < 1e-6);
  assert.ok(t[byLabel.L] < t[byLabel.a] && t[byLabel.b] < t[byLabel.L]); // b̄ moved 5.4e-4 relative
  assert.equal(t[byLabel.c] > 0.15, true);
});

test("a node only one run has, a reshaped tensor, an unchanged one", () => {
  assert.deepEqual(change(undefined, 2), { before: undefined, after: 2, delta: null, changed: true });
  assert.equal(change(undefined, undefined), null);
  const t = (data) => ({ shape: [data.length], dtype: "float64", summary: null, data });
  assert.deepEqual(change(t([1, 2]), t([1, 2.5])).delta, 0.5);
  assert.equal(change(t([1, 2]), t([1, 2, 3])).changed, true);
  assert.equal(change(t([1, 2]), t([1, 2])).changed, false);
  const renamed = { ...after, graph: { ...after.graph, nodes: after.graph.nodes.map((n) => (n.label === "t" ? { ...n, label: "u" } : n)) } };
  const diff = diffRuns(before, renamed);
  assert.deepEqual(diff.gone, ["t"]);
  assert.equal(diff.rows.find((r) => r.label === "u").matched, false);
});

test("the first-order prediction of the output's change: h · ā of the run before", () => {
  const diff = diffRuns(before, after);
  const first = firstOrder(diff, new Set(["a", "b", "c"]));
  assert.equal(first.leaf, "a");
  assert.equal(first.h, 1.001 - 1.0);
  assert.equal(first.bar, A_BAR);
  assert.equal(first.predicted, (1.001 - 1.0) * A_BAR);
  assert.equal(first.actual, diff.output.value.delta);
  assert.equal(firstOrder(diffRuns(before, before), new Set(["a", "b", "c"])), null); // nothing moved
});

test("the output's row leads the rows, wherever the output was made", () => {
  const diff = diffRuns(before, after);
  assert.equal(diff.rows[0].label, "L"); // the number the edit moves, first in the table
  assert.equal(diff.output, diff.rows[0]);
  assert.deepEqual(diff.rows.slice(1).map((r) => r.label), ["a", "b", "c", "e", "d", "t"]);
  // an output that is not the last node made (the request's `output`): its row first
  const onT = { ...after, output: { name: "t", node: "n5" } };
  const other = diffRuns(before, onT);
  assert.deepEqual(other.rows.map((r) => r.label), ["t", "a", "b", "c", "e", "d", "L"]);
  assert.equal(firstOrder(other, new Set(["a", "b", "c"])).actual, other.output.value.delta);
  assert.notEqual(other.output.value.delta, diff.output.value.delta);
});
