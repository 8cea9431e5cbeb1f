// The walk as the stream builds it (static/js/walk.js): begun from the graph event, events
// appended, the done event's results on the trace; and which drafts are too big to trace
// on their own when the page opens.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { addEvent, beginWalk, BIG_PROGRAM, bigProgram, outputOf, prepareWalk } from "../../static/js/walk.js";
import { fold } from "../../static/js/timeline.js";

const trace = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));

test("a walk streamed event by event ends as the one-request walk does", () => {
  const head = { version: 1, graph: trace.graph, ledger: null };
  const walk = beginWalk(head, "program");
  assert.equal(walk.layout, null);
  assert.equal(walk.plan.reason, undefined); // small: laid out by the page's worker
  assert.equal(walk.complete, false);
  const events = structuredClone(trace.events);
  const last = events.at(-1);
  events[events.length - 1] = { ...last, output: trace.output, grads: trace.grads, first_non_finite: null };
  for (const ev of events.slice(0, -1)) addEvent(walk, ev);
  assert.equal(walk.timeline.length, events.length - 1);
  assert.equal(walk.trace.events.length, events.length - 1);
  assert.equal(outputOf(walk), trace.output.node); // guessed before done: the last node that feeds nothing
  addEvent(walk, events.at(-1));
  assert.equal(walk.complete, true);
  assert.deepEqual(walk.trace.grads, trace.grads);
  assert.deepEqual(walk.timeline.at(events.length), fold(walk.trace.events)); // done: + leaf_grads
  const whole = prepareWalk(structuredClone(trace), "program");
  assert.deepEqual(walk.timeline.at(events.length).grads, whole.timeline.at(events.length).grads);
});

test("a graph predicted to cost past the budget is refused when it arrives", () => {
  const nodes = [];
  const edges = [];
  for (let i = 0; i < 4000; i++) {
    nodes.push({ id: `n${i}`, label: `x${i}`, op: "mul", role: i ? "op" : "leaf", shape: [] });
    if (i) edges.push({ id: `n${i - 1}->n${i}#0`, source: `n${i - 1}`, target: `n${i}`, arg: 0 });
  }
  const walk = beginWalk({ version: 1, graph: { nodes, edges }, ledger: null }, "");
  assert.equal(walk.plan.reason, "too_large");
  assert.ok(walk.plan.cost.ms > walk.plan.budget);
});

test("a draft over 2,000 lines or 200 KB is big; the count is in the words", () => {
  assert.deepEqual(BIG_PROGRAM, { lines: 2000, chars: 200_000 });
  assert.equal(bigProgram("x = 1.0\n".repeat(2000)), null);
  assert.equal(bigProgram("x = 1.0\n".repeat(2001)), "2,001 lines");
  assert.equal(bigProgram("x = 1.0\n" + `y = ${"1 + ".repeat(60_000)}1\n`), "240 KB");
  assert.equal(bigProgram(""), null);
});
