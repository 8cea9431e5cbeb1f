// The timeline fold: the view at step k is events[:k] applied in order, whichever way
// the page got to k (forward, back, scrubbing, through snapshots).
// fixtures/tanh-fanout.json is the server's answer to POST /api/trace for the
// seed-tanh-fanout preset, saved as it came.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createTimeline, edgeIdOf, emptyView, focusOf, fold } from "../../static/js/timeline.js";
import { narrate } from "../../static/js/narration.js";

const trace = JSON.parse(readFileSync(new URL("./fixtures/tanh-fanout.json", import.meta.url)));
const { events } = trace;
const A = "n0"; // a, used by e and by d (fan-out)

test("step 0 shows nothing", () => {
  const view = createTimeline(events).at(0);
  assert.deepEqual(view, emptyView());
});

test("the forward pass makes each value appear in order", () => {
  const timeline = createTimeline(events);
  assert.deepEqual(timeline.at(1).values, { n0: 1.0 });
  assert.equal(timeline.at(1).phase, "forward");
  const after = timeline.at(7);
  assert.equal(after.values.n5, 0.46211715726000974);
  assert.equal(after.values.n6, 0.9242343145200195);
  assert.deepEqual(after.adjoints, {});
  assert.equal(after.event.kind, "evaluate");
  assert.equal(after.event.node, "n6");
});

test("the seed gives the output adjoint 1 and starts the backward pass", () => {
  const view = createTimeline(events).at(8);
  assert.equal(view.phase, "backward");
  assert.deepEqual(view.adjoints, { n6: 1.0 });
});

test("a's adjoint goes 0 -> 1.5729 -> 0.7864 across its two accumulate events", () => {
  const timeline = createTimeline(events);
  const seen = [0]; // no adjoint yet reads as 0
  for (let k = 0; k <= timeline.length; k++) {
    const adjoint = timeline.at(k).adjoints[A] ?? 0;
    if (seen.at(-1) !== adjoint) seen.push(adjoint);
  }
  assert.deepEqual(seen, [0, 1.5728954659318548, 0.7864477329659274]);
  assert.equal(timeline.at(13).received[A], 1);
  assert.equal(timeline.at(14).received[A], 2);
});

test("stepping back restores the earlier view exactly", () => {
  const timeline = createTimeline(events);
  const before = timeline.at(13);
  timeline.at(14);
  timeline.at(16);
  assert.deepEqual(timeline.at(13), before);
  assert.equal(timeline.at(13).adjoints[A], 1.5728954659318548);
});

test("views are independent copies", () => {
  const timeline = createTimeline(events);
  const view = timeline.at(16);
  view.adjoints[A] = 123;
  view.values.n0 = 456;
  assert.equal(timeline.at(16).adjoints[A], 0.7864477329659274);
  assert.equal(timeline.at(16).values.n0, 1.0);
});

test("snapshots give the same view as folding from the start, at every step", () => {
  for (const every of [1, 3, 4, 64]) {
    const timeline = createTimeline(events, { every });
    assert.equal(timeline.snapshots.length, 1 + Math.floor(events.length / every));
    for (let k = 0; k <= events.length; k++) {
      assert.deepEqual(timeline.at(k), fold(events.slice(0, k)), `every=${every} k=${k}`);
    }
  }
});

test("snapshots keep a long trace cheap and right", () => {
  // 1000 accumulate events into one node: every contribution is +1.
  const long = Array.from({ length: 1000 }, (_, i) => ({
    kind: "accumulate", seq: i, node: "n1", input: "n0", arg: 0,
    contribution: 1, adjoint_before: i, adjoint_after: i + 1, narration: "",
  }));
  const timeline = createTimeline(long);
  // One once max(64, floor(length / 4)) events have passed since the last (341 - 256 = 85
  // = floor(341 / 4)): copies grow with the trace, about five times its length in all.
  assert.deepEqual(timeline.snapshots.map((v) => v.step), [0, 64, 128, 192, 256, 341, 454, 605, 806]);
  assert.equal(timeline.at(999).adjoints.n0, 999);
  assert.equal(timeline.at(500).adjoints.n0, 500);
  assert.equal(timeline.at(500).received.n0, 500);
});

test("the done event carries the final gradients", () => {
  const view = createTimeline(events).at(events.length);
  assert.equal(view.phase, "done");
  assert.deepEqual(view.grads, { a: 0.7864477329659274, b: 1.5728954659318548, c: 0.46211715726000974 });
  assert.equal(view.adjoints.n1, 1.5728954659318548);
  assert.equal(view.adjoints.n2, 0.46211715726000974);
});

test("edges that carried a gradient are remembered, keyed like the graph's edges", () => {
  const view = createTimeline(events).at(events.length);
  const ids = new Set(trace.graph.edges.map((e) => e.id));
  assert.deepEqual(new Set(Object.keys(view.carried)), ids);
  assert.equal(edgeIdOf(events[13]), "n0->n3#0");
});

test("steps are clamped to 0..length", () => {
  const timeline = createTimeline(events);
  assert.equal(timeline.at(-5).step, 0);
  assert.equal(timeline.at(99).step, events.length);
  assert.equal(timeline.at(Number.NaN).step, 0);
});

test("unbroadcast only narrates; an unknown kind only advances the step", () => {
  const unbroadcast = { kind: "unbroadcast", seq: 0, node: "n2", input: "n1", arg: 1,
    from_shape: [3, 2], to_shape: [2], axes: [0], before: null, after: null };
  const view = fold([unbroadcast, { kind: "future", seq: 1 }]);
  assert.equal(view.step, 2);
  assert.equal(view.phase, "backward");
  assert.deepEqual(view.adjoints, {});
});

test("non-finite values fold like any other", () => {
  const view = fold([{ kind: "evaluate", seq: 0, node: "n0", value: "NaN" }]);
  assert.equal(view.values.n0, "NaN");
});

test("the focus of an event: the node evaluated, or the edge and both its ends", () => {
  assert.deepEqual(focusOf(events[3]), { current: "n3" });
  assert.deepEqual(focusOf(events[12]), { source: "n4", target: "n0", edge: "n0->n4#1" });
  assert.deepEqual(focusOf(null), {});
  assert.deepEqual(focusOf(events.at(-1)), {}); // done
});

test("a recompute event (checkpointing) sets the node's value again and focuses it", () => {
  const events = [
    { seq: 0, kind: "evaluate", node: "n0", value: 2 },
    { seq: 1, kind: "evaluate", node: "n1", value: 4 },
    { seq: 2, kind: "seed", node: "n1", adjoint: 1 },
    { seq: 3, kind: "recompute", node: "n1", value: 4, narration: "checkpoint: recompute y = x * x" },
  ];
  const view = fold(events);
  assert.equal(view.phase, "backward");
  assert.equal(view.values.n1, 4);
  assert.deepEqual(focusOf(events[3]), { current: "n1" });
  assert.equal(narrate(events[3], {}), "checkpoint: recompute y = x * x");
});

// ---------------------------------------------------------------- big and streamed traces (issue 8)

/** n accumulate events into n different inputs: the state grows with every event. */
function spread(n) {
  return Array.from({ length: n }, (_, i) => ({
    kind: "accumulate", seq: i, node: `n${i + 1}`, input: `n${i}`, arg: 0,
    contribution: 1, adjoint_before: 0, adjoint_after: i,
  }));
}

test("a streamed timeline (events pushed one by one) folds like the whole list", () => {
  const streamed = createTimeline([]);
  events.forEach((ev, i) => {
    streamed.push(ev);
    assert.equal(streamed.length, i + 1);
    assert.deepEqual(streamed.at(i + 1), fold(events.slice(0, i + 1)));
  });
  assert.equal(streamed.events.length, events.length);
});

test("snapshots grow further apart with the trace: few copies, each seek right", () => {
  const long = spread(20_000);
  const timeline = createTimeline(long);
  // One every 64 events would be 312 copies of a state of up to 60,000 entries.
  assert.ok(timeline.snapshots.length < 80, String(timeline.snapshots.length));
  for (const k of [0, 1, 63, 64, 1000, 12_345, 19_999, 20_000]) {
    assert.deepEqual(timeline.at(k), fold(long.slice(0, k)), `k=${k}`);
  }
});

test("past the budget every other snapshot goes, and the views stay right", () => {
  const long = spread(5000);
  const timeline = createTimeline(long, { budget: 20_000 });
  const held = timeline.snapshots.reduce((sum, v) => sum + Object.keys(v.adjoints).length * 3, 0);
  assert.ok(held <= 2 * 20_000, String(held));
  assert.equal(timeline.snapshots[0].step, 0);
  for (const k of [0, 2500, 4999, 5000]) assert.deepEqual(timeline.at(k), fold(long.slice(0, k)));
});

test("view(k) steps forward by applying only the next events, and matches at(k) anywhere", () => {
  const long = spread(3000);
  const timeline = createTimeline(long);
  const first = timeline.view(10);
  const next = timeline.view(11);
  assert.equal(next, first); // the same live object, one event further on
  assert.equal(next.step, 11);
  for (const k of [11, 500, 499, 2999, 3000, 0, 7, 2000]) {
    assert.deepEqual({ ...timeline.view(k) }, timeline.at(k), `k=${k}`);
  }
});

test("touched names the nodes and edges the events between two steps change", () => {
  const timeline = createTimeline(events);
  const { nodes, edges } = timeline.touched(13, 14); // events[13]: an accumulate into a
  assert.deepEqual([...edges], [edgeIdOf(events[13])]);
  assert.deepEqual(new Set(nodes), new Set([events[13].input, events[13].node]));
  assert.deepEqual(timeline.touched(14, 13), timeline.touched(13, 14));
  assert.equal(timeline.touched(0, events.length, 3), null); // more than the limit: restyle all
});

test("stepping forward across a snapshot keeps the live view (no copy of the snapshot)", () => {
  const long = spread(3000);
  const timeline = createTimeline(long);
  const steps = timeline.snapshots.map((v) => v.step);
  const at = steps[steps.length - 1]; // a snapshot well into the trace
  const before = timeline.view(at - 1);
  for (let k = at; k < at + 5; k++) assert.equal(timeline.view(k), before, `k=${k}`);
  assert.deepEqual({ ...timeline.view(at + 4) }, timeline.at(at + 4));
  // A jump far back still starts from the nearest snapshot, and is right.
  assert.deepEqual({ ...timeline.view(7) }, timeline.at(7));
});

// Every kind of event, some writing over what an earlier one wrote (a recompute, a second
// pass's seed with reset, repeated contributions to one node), for undo to restore.
function mixed(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ kind: "evaluate", seq: out.length, node: `n${i}`, value: i });
  out.push({ kind: "seed", seq: out.length, node: `n${n - 1}`, adjoint: 1 });
  for (let i = n - 1; i > 0; i--) {
    out.push({ kind: "unbroadcast", seq: out.length, node: `n${i}`, input: `n${i - 1}`, arg: 0 });
    out.push({ kind: "accumulate", seq: out.length, node: `n${i}`, input: `n${i - 1}`, arg: 0, adjoint_after: i });
    out.push({ kind: "accumulate", seq: out.length, node: `n${i}`, input: `n0`, arg: 1, adjoint_after: -i });
    if (i % 7 === 0) out.push({ kind: "recompute", seq: out.length, node: `n${i}`, value: i + 0.5 });
  }
  out.push({ kind: "seed", seq: out.length, node: `n${n - 1}`, adjoint: 2, reset: ["n0", "n3", "n5"] });
  out.push({ kind: "tangent", seq: out.length, node: "n2", value: 2, tangent: 0.5 });
  out.push({ kind: "mystery", seq: out.length, node: "n1" });
  out.push({ kind: "done", seq: out.length, grads: { a: 1 } });
  return out;
}

test("past the copy limit no snapshot is made, and stepping back undoes events exactly", () => {
  const list = mixed(60);
  const timeline = createTimeline(list, { copyLimit: 90 }); // snapshots stop at step 30
  assert.ok(timeline.snapshots.every((v) => 3 * v.step <= 90), String(timeline.snapshots.map((v) => v.step)));
  const end = timeline.view(list.length);
  for (let k = list.length - 1; k >= list.length - 40; k--) {
    assert.equal(timeline.view(k), end, `k=${k}: the live view, undone, not a copy`);
    assert.deepEqual({ ...timeline.view(k) }, fold(list.slice(0, k)), `k=${k}`);
  }
});

test("any walk of view(k), forward, back and jumps, equals the fold", () => {
  const list = mixed(80);
  for (const copyLimit of [30, 300, Infinity]) {
    const timeline = createTimeline(list, { copyLimit });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let k = 0;
    for (let n = 0; n < 400; n++) {
      const r = random();
      k = r < 0.4 ? k + 1 : r < 0.8 ? k - 1 : Math.floor(random() * (list.length + 1));
      k = Math.max(0, Math.min(list.length, k));
      assert.deepEqual({ ...timeline.view(k) }, fold(list.slice(0, k)), `copyLimit=${copyLimit} k=${k}`);
    }
  }
});

test("once the done event is in, End is the whole fold at no cost and a step back undoes one event", () => {
  const read = new Set(); // events read (applied or undone)
  const counted = (ev) => new Proxy(ev, { get: (target, key) => { read.add(target); return target[key]; } });
  const list = mixed(60);
  const timeline = createTimeline([], { copyLimit: 90 }); // snapshots stop at step 30
  for (const ev of list) timeline.push(counted(ev));
  timeline.view(0); // Home: from the first snapshot
  read.clear();
  const end = timeline.view(list.length);
  assert.equal(read.size, 0, "End reads no event: the fold of the pushes is handed out");
  assert.deepEqual({ ...end }, fold(list));
  assert.deepEqual({ ...timeline.view(list.length - 1) }, fold(list.slice(0, -1)));
  assert.equal(timeline.view(list.length - 1), end, "a step back from End undoes on the same view");
  timeline.view(2);
  read.clear();
  assert.deepEqual({ ...timeline.view(list.length) }, fold(list));
  assert.equal(read.size, 1, "End again: only the one event undone before is applied again");
});

test("views taken while the events are pushed one by one, and after, equal the fold", () => {
  const list = mixed(50);
  const timeline = createTimeline([], { copyLimit: 60 });
  let seed = 3;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const [i, ev] of list.entries()) {
    timeline.push(ev);
    const k = Math.floor(random() * (i + 2));
    assert.deepEqual({ ...timeline.view(k) }, fold(list.slice(0, k)), `pushed ${i + 1}, k=${k}`);
  }
  for (let n = 0; n < 200; n++) {
    const k = Math.floor(random() * (list.length + 1));
    assert.deepEqual({ ...timeline.view(k) }, fold(list.slice(0, k)), `k=${k}`);
  }
});
