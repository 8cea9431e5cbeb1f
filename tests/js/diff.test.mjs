// Edit and diff without the DOM (static/js/diff.js): the tanh fan-out example against the
// same program with a = 1.001 (fixtures/tanh-fanout-a1001.json, the engine's answer to
// POST /api/trace, as fixtures/tanh-fanout.json is for a = 1.0).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { change, diffRuns, finalNumbers, firstOrder, matchNodes, strengths } from "../../static/js/diff.js";

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
  assert.deepEqual(change(undefined, 2), { before: undefined, after: 2, delta: null, changed: true, added: true });
  assert.deepEqual(change(2, undefined), { before: 2, after: undefined, delta: null, changed: true });
  assert.equal(change(undefined, undefined), null);
  const t = (data) => ({ shape: [data.length], dtype: "float64", summary: null, data });
  assert.deepEqual(change(t([1, 2]), t([1, 2.5])).delta, 0.5);
  assert.equal(change(t([1, 2]), t([1, 2, 3])).changed, true);
  assert.equal(change(t([1, 2]), t([1, 2])).changed, false);
  // a node of another op is new, and the one it replaced gone, whatever their labels
  const swapped = { ...after, graph: { ...after.graph, nodes: after.graph.nodes.map((n) => (n.label === "t" ? { ...n, op: "sigmoid" } : n)) } };
  const diff = diffRuns(before, swapped);
  assert.deepEqual(diff.gone, ["t"]);
  assert.equal(diff.rows.find((r) => r.label === "t").matched, false);
});

// The engine's traces (POST /api/trace) of the edited programs, made as the other fixtures:
//   tanh-fanout-renamed.json   the tanh fan-out example with e renamed p
//   reassigned.json            w = 0.5; x = 1.0; x = x * w; x = tanh(x); L = x * x
//   reassigned-inserted.json   the same with `x = x + 0.25` inserted above `x = x * w`

test("renaming a variable lines up every node: nothing changed, nothing gone", () => {
  const renamed = read("tanh-fanout-renamed.json");
  const diff = diffRuns(before, renamed);
  assert.deepEqual(diff.gone, []); // e was matched by label before, and gone
  const p = diff.rows.find((r) => r.label === "p");
  assert.equal(p.matched, true);
  assert.equal(p.was, "e");
  assert.equal(p.value.before, -0.5);
  assert.equal(p.adjoint.before, 1.5728954659318548);
  assert.deepEqual(diff.rows.filter((r) => r.changed).map((r) => r.label), []);
  // a renamed input: the leaf left over pairs with the leaf left over
  const leaf = { ...before, graph: { nodes: before.graph.nodes.map((n) => (n.name === "a" ? { ...n, name: "x", label: "x" } : n)) } };
  assert.equal(matchNodes(before.graph, leaf.graph).get("n0"), "n0");
  assert.deepEqual(diffRuns(before, leaf).gone, []);
});

test("a line inserted above lines up the nodes after it by structure, not by label", () => {
  const old = read("reassigned.json");
  const now = read("reassigned-inserted.json");
  const label = (trace, id) => trace.graph.nodes.find((n) => n.id === id).label;
  const pairs = [...matchNodes(old.graph, now.graph)].map(([a, b]) => [label(now, a), label(old, b)]);
  // x' (the inserted x + 0.25) and its constant are new; x'' = x' * w is the old x' = x * w,
  // x''' = tanh(x'') the old x'' (by label, x' and x'' would pair with another op's node)
  assert.deepEqual(pairs, [["w", "w"], ["x", "x"], ["x''", "x'"], ["x'''", "x''"], ["L", "L"]]);
  const diff = diffRuns(old, now);
  assert.deepEqual(diff.gone, []);
  const row = (l) => diff.rows.find((r) => r.label === l);
  assert.equal(row("x'").matched, false);
  assert.equal(row("w").value.changed, false); // w is as it was; its gradient moved
  assert.equal(row("x''").value.before, 0.5); // 1.0 * 0.5 before, (1.0 + 0.25) * 0.5 now
  assert.equal(row("x''").value.after, 0.625);
});

test("mid-walk, both runs' numbers at that step: values known so far, adjoints so far", () => {
  // events[:13] shown: the backward pass has sent ā one contribution (through d) of two
  const mid = diffRuns(before, after, { step: 13 });
  const byLabel = Object.fromEntries(mid.rows.map((r) => [r.label, r]));
  assert.equal(byLabel.a.adjoint.before, 1.5728954659318548); // not the final 0.7864
  assert.equal(byLabel.a.adjoint.after, after.events[12].adjoint_after);
  assert.equal(byLabel.b.adjoint, null); // b̄ arrives at event 14: nothing yet, in either run
  assert.equal(byLabel.L.value.before, 0.9242343145200195);
  // early in the forward pass only the values known so far are compared
  const early = diffRuns(before, after, { step: 4 });
  const e = Object.fromEntries(early.rows.map((r) => [r.label, r]));
  assert.equal(e.e.value.after, 1.001 * -0.5);
  assert.equal(e.d.value, null);
  assert.equal(e.L.value, null);
  assert.equal(e.a.adjoint, null);
  assert.deepEqual(early.rows.filter((r) => r.changed).map((r) => r.label), ["a", "e"]);
  // at step 0 and at the end: the final numbers
  for (const step of [0, after.events.length, null]) {
    assert.deepEqual(diffRuns(before, after, { step }), diffRuns(before, after));
  }
  assert.equal(diffRuns(before, after).rows.find((r) => r.label === "a").adjoint.before, A_BAR);
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

test("nodes an inserted line made are new, not changed (the review: '2 of 9 nodes changed')", () => {
  const old = read("reassigned.json");
  const now = read("reassigned-inserted.json");
  const diff = diffRuns(old, now);
  const added = diff.rows.filter((r) => r.added);
  assert.deepEqual(added.map((r) => r.label).sort(), ["0.25", "x'"]);
  for (const r of added) {
    assert.equal(r.changed, false, r.label);
    assert.equal(r.matched, false);
    assert.equal(r.value.added, true); // its row reads "new", not "– → 0.25 changed"
  }
  assert.ok(diff.rows.filter((r) => r.changed).every((r) => r.matched));
  assert.equal(strengths(diff.rows)[added[0].id], undefined); // no colour scale for a new node
  // the run against itself: nothing new, nothing changed
  assert.deepEqual(diffRuns(now, now).rows.filter((r) => r.added || r.changed), []);
});

test("a line inserted above that shares an input does not take the node below it (k = t * 3.0 above L = t * c)", () => {
  const now = read("tanh-fanout-k-inserted.json"); // the example with `k = t * 3.0` before L
  const diff = diffRuns(before, now);
  const row = (label) => diff.rows.find((r) => r.label === label);
  // L is still L, unchanged; k and its constant are new (k took L's place: "L new", "k Δ +0.4621")
  assert.equal(row("L").matched, true);
  assert.equal(row("L").changed, false);
  assert.deepEqual(diff.rows.filter((r) => r.added).map((r) => r.label).sort(), ["3.0", "k"]);
  assert.deepEqual(diff.rows.filter((r) => r.changed), []);
});

test("a randn leaf drawn with another seed is the same leaf, changed (not new and gone)", () => {
  const diff = diffRuns(read("randn-seed1.json"), read("randn-seed3.json"));
  const w = diff.rows.find((r) => r.label === "W");
  assert.equal(w.matched, true);
  assert.equal(w.added, false);
  assert.equal(w.changed, true);
  assert.deepEqual(diff.gone, []);
});

test("a tensor's change says its measure: the largest elementwise change, or the mean's for a summary", () => {
  const t = (data) => ({ shape: [data.length], dtype: "float64", summary: null, data });
  assert.deepEqual(change(t([1, 2]), t([1.5, 1])), { before: t([1, 2]), after: t([1.5, 1]), delta: -1, measure: "max", changed: true });
  assert.equal(change(t([1, 2]), t([1, 2])).measure, "max"); // unchanged: "max 0", as every tensor row
  const s = (mean) => ({ shape: [100, 100], dtype: "float64", summary: { min: -1, max: 1, mean, norm: 5 }, data: null });
  assert.deepEqual(change(s(0.25), s(0.5)), { before: s(0.25), after: s(0.5), delta: 0.25, measure: "mean", changed: true });
  assert.deepEqual(change(s(0.25), s(0.25)), { before: s(0.25), after: s(0.25), delta: 0, measure: "mean", changed: false });
  // the seed of a randn leaf changed: W's value moves by its largest elementwise change
  const w = diffRuns(read("randn-seed1.json"), read("randn-seed3.json")).rows.find((r) => r.label === "W");
  assert.equal(w.value.measure, "max");
  assert.ok(Math.abs(w.value.delta) > 0);
});

// A quiz with Compare runs on (issue 16, a review): the other run's ā is the answer, give or
// take the nudge; the comparison shows a question's number as "?" in both runs until it is
// answered, as the node's box does (quiz.js hiddenAt is the one definition of what is hidden).
test("a quiz's secret numbers are veiled in both runs, the rest compared as before", async () => {
  const { veiled } = await import("../../static/js/diff.js");
  const { hiddenAt, questionsOf } = await import("../../static/js/quiz.js");
  const qs = questionsOf("fanout", after); // ā, asked at step 13
  const diff = diffRuns(before, after); // at step 0: the final numbers
  const open = hiddenAt(qs, new Set(), 0);
  assert.ok(open.secret("n0", "adjoint") && !open.secret("n0", "value") && !open.secret("n6", "value"));
  const shown = veiled(diff, open.secret);
  const a = shown.rows.find((r) => r.id === "n0");
  assert.deepEqual(a.adjoint, { hidden: true, changed: true }); // no before, after, delta
  assert.equal(a.value.delta, diff.rows.find((r) => r.id === "n0").value.delta); // a's value is not asked
  assert.equal(firstOrder(shown, new Set(["a", "b", "c"])), null); // Δa · ā would name ā
  assert.ok(firstOrder(diff, new Set(["a", "b", "c"]))); // (it does without the quiz)
  assert.equal(shown.output.value.delta, diff.output.value.delta); // without the leaves: L compares
  // with the leaves' ids, an open adjoint question veils every computed value's change too:
  // ΔL / Δa is ā give or take the nudge (a review read ā off "L: 0.9242 → 0.925")
  const leafIds = new Set(after.graph.nodes.filter((n) => n.role === "leaf").map((n) => n.id));
  const strict = veiled(diff, open.secret, leafIds);
  assert.deepEqual(strict.output.value, { hidden: true, changed: true });
  assert.ok(strict.rows.filter((r) => !leafIds.has(r.id)).every((r) => !r.value || r.value.hidden));
  assert.equal(strict.rows.find((r) => r.id === "n0").value.delta, a.value.delta); // the nudge shows
  assert.deepEqual(veiled(diff, hiddenAt(qs, new Set([qs[0].step]), 14).secret, leafIds), diff); // answered
  assert.equal(strengths(shown.rows).n0, strengths(diff.rows).n0); // a's ring: its value's change
  // answered: nothing is veiled (the same rows)
  const answered = hiddenAt(qs, new Set([qs[0].step]), 14);
  assert.equal(answered.secrets, "");
  assert.deepEqual(veiled(diff, answered.secret), diff);
  assert.equal(veiled(diff, null), diff);
  // a values quiz veils the output's own value, and its row leads as the output still
  const values = hiddenAt(questionsOf("values", after), new Set(), 0);
  const out = veiled(diff, values.secret).output;
  assert.equal(out.id, diff.output.id);
  assert.deepEqual(out.value, { hidden: true, changed: true });
  assert.equal(strengths(veiled(diff, values.secret).rows)[out.id], 0.15); // its ring says nothing of how much
  assert.ok(strengths(diff.rows)[out.id] > 0.15);
});

// Stepping with Compare on (issue 16, a review: 5 steps of a 1,200-node walk cost 750 ms):
// a step re-diffs only the nodes the events between it and the last step reached.
test("stepping re-diffs only the nodes the steps between reached, with the numbers of a fresh diff", () => {
  const copy = (t) => JSON.parse(JSON.stringify(t)); // a fresh pair of runs: nothing cached
  let last = null;
  for (const step of [0, 3, 9, 13, 4, 16, 15, 1, 14, 13, null, 5]) {
    const diff = diffRuns(before, after, { step });
    assert.deepEqual(diff, diffRuns(copy(before), copy(after), { step }), `step ${step}`);
    if (last && last.step > 0 && last.step < 16 && step > 0 && step < 16) {
      const [lo, hi] = [Math.min(last.step, step), Math.max(last.step, step)];
      const reached = new Set(after.events.slice(lo, hi).map((ev) => (ev.kind === "accumulate" ? ev.input : ev.node)));
      for (const r of diff.rows) {
        const same = last.diff.rows.find((x) => x.id === r.id) === r;
        assert.equal(same, !reached.has(r.id), `step ${last.step} -> ${step}: ${r.label}`);
      }
    }
    last = { step, diff };
  }
});
