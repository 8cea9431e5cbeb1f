// Reading the stream in a worker (static/js/stream.js relayTrace / receiveTrace, issue 8):
// the worker side posts the graph in slices and the events in batches, the page side puts
// them back together, a few milliseconds at a time. Here both sides run in one process,
// joined by a port that delivers each message as its own task, structured-cloned as
// postMessage does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { receiveTrace, relayRequest, relayTrace } from "../../static/js/stream.js";

const sse = (kind, data) => `event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`;

/** A graph of `n` nodes in a chain, with a group every 10 nodes; its events (a forward pass and done). */
function chainTrace(n) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, index: i, label: `x${i}`, span: { line: i + 1, col: 0 } }));
  const edges = nodes.slice(1).map((node, i) => ({ id: `n${i}->${node.id}#0`, source: `n${i}`, target: node.id, arg: 0 }));
  const groups = Array.from({ length: Math.floor(n / 10) }, (_, i) => ({ id: `g${i}`, kind: "statement", name: `s${i}`, first: 10 * i, end: 10 * i + 10, parent: null }));
  const head = { version: 1, graph: { nodes, edges, groups, blocks: [] }, ledger: { flops_forward: n } };
  const events = nodes.map((node, i) => ({ seq: i, kind: "evaluate", node: node.id, value: i }));
  events.push({ seq: n, kind: "done", output: { name: "x", node: `n${n - 1}`, value: n - 1 }, grads: { x: 1 }, first_non_finite: null });
  return { head, events };
}

function streamOf({ head, events }, tail = "") {
  const text = sse("graph", head) + events.map((e) => sse(e.kind, e)).join("") + tail;
  return new Response(text, { headers: { "Content-Type": "text/event-stream" } });
}

/** A worker-like port for receiveTrace, and the `post` that feeds it (one task a message). */
function joined() {
  const port = { terminated: 0, onmessage: null, onerror: null, terminate() { this.terminated += 1; } };
  const sent = [];
  const post = (message) => {
    sent.push(message);
    const copy = structuredClone(message);
    setTimeout(() => port.terminated || port.onmessage?.({ data: copy }), 0);
  };
  return { port, post, sent };
}

test("the graph crosses in slices and the events in batches, and arrive whole and in order", async () => {
  const trace = chainTrace(2500);
  const { port, post, sent } = joined();
  const relayed = relayTrace(streamOf(trace), post, { part: 1000, batch: 400 });
  const seen = [];
  let head = null;
  const done = await receiveTrace(port, {
    onGraph: (h) => { head = h; seen.push("graph"); },
    onEvent: (ev) => seen.push(ev.seq),
  });
  await relayed;
  // No message carries more than a slice: what the page deserializes at once is bounded.
  const kinds = sent.map((m) => m.type);
  assert.deepEqual(kinds.slice(0, 1), ["head"]);
  const parts = sent.filter((m) => m.type === "part");
  assert.deepEqual(parts.map((m) => `${m.key}:${m.items.length}`),
    ["nodes:1000", "nodes:1000", "nodes:500", "edges:1000", "edges:1000", "edges:499"]);
  assert.deepEqual(sent[0].sliced, ["nodes", "edges"]); // 250 groups fit in one message
  assert.ok(sent.filter((m) => m.type === "events").every((m) => m.events.length <= 400));
  assert.equal(kinds.at(-1), "end");
  // Put back together: the same head, every event once, in order, after the graph.
  assert.deepEqual(head, trace.head);
  assert.deepEqual(seen, ["graph", ...trace.events.map((e) => e.seq)]);
  assert.deepEqual(done, trace.events.at(-1));
  assert.equal(port.terminated, 1, "the worker is terminated once it is over");
});

test("no event is handed over before onGraph's promise is kept (the page builds the walk in slices)", async () => {
  const trace = chainTrace(30);
  const { port, post } = joined();
  relayTrace(streamOf(trace), post, { part: 10, batch: 5 });
  const order = [];
  await receiveTrace(port, {
    onGraph: async () => {
      order.push("graph begun");
      await new Promise((r) => setTimeout(r, 20)); // many messages arrive meanwhile
      order.push("graph built");
    },
    onEvent: (ev) => order.length < 4 && order.push(`event ${ev.seq}`),
  });
  assert.deepEqual(order, ["graph begun", "graph built", "event 0", "event 1"]);
});

test("the page side works a budget at a time, with a turn for the page between", async () => {
  const trace = chainTrace(3000);
  const { port, post } = joined();
  relayTrace(streamOf(trace), post, { batch: 3001 }); // one big batch of events
  let pauses = 0;
  let count = 0;
  await receiveTrace(port, {
    budget: 0, // a turn at every chance
    pause: () => { pauses += 1; return new Promise((r) => setTimeout(r, 0)); },
    onEvent: () => { count += 1; },
  });
  assert.equal(count, 3001);
  assert.ok(pauses >= 3001 / 128, `${pauses} turns for 3,001 events in one message`);
});

test("an error event, a refused request and no server reject with the error's detail", async () => {
  const trace = chainTrace(20);
  const error = { kind: "timeout", message: "the trace ran too long", line: 3, col: 4, end_line: 3, end_col: 9, hint: null };
  let { port, post } = joined();
  relayTrace(streamOf({ head: trace.head, events: trace.events.slice(0, 5) }, sse("error", { error })), post);
  await assert.rejects(receiveTrace(port, {}), (e) => e.name === "TraceError" && e.detail.line === 3 && e.detail.kind === "timeout");
  assert.equal(port.terminated, 1);

  ({ port, post } = joined());
  const syntax = { kind: "syntax", message: "invalid syntax", line: 2, col: 8, end_line: 2, end_col: 9, hint: null };
  const refused = new Response(JSON.stringify({ error: syntax }), { status: 422, headers: { "Content-Type": "application/json" } });
  relayRequest({ url: "/api/trace/stream", init: {} }, post, { fetcher: async () => refused });
  await assert.rejects(receiveTrace(port, {}), (e) => e.detail.kind === "syntax" && e.detail.col === 8);

  ({ port, post } = joined());
  relayRequest({ url: "/api/trace/stream", init: {} }, post, { fetcher: async () => { throw new TypeError("Failed to fetch"); } });
  await assert.rejects(receiveTrace(port, {}), (e) => e.detail.kind === "network" && /could not reach/.test(e.message));

  ({ port, post } = joined()); // a stream cut before done
  relayTrace(streamOf({ head: trace.head, events: trace.events.slice(0, 5) }), post);
  await assert.rejects(receiveTrace(port, {}), (e) => e.detail.kind === "network");
});

test("aborting rejects with an AbortError and terminates the worker; nothing is handed over after", async () => {
  const trace = chainTrace(5000);
  const { port, post } = joined();
  const controller = new AbortController();
  relayTrace(streamOf(trace), post, { part: 500, batch: 100 });
  let events = 0;
  const reading = receiveTrace(port, {
    signal: controller.signal,
    onGraph: () => controller.abort(), // a new Trace while the graph is being built
    onEvent: () => { events += 1; },
  });
  await assert.rejects(reading, (e) => e.name === "AbortError");
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(events, 0);
  assert.equal(port.terminated, 1);
  const already = new AbortController();
  already.abort();
  await assert.rejects(receiveTrace(joined().port, { signal: already.signal }), (e) => e.name === "AbortError");
});

test("the worker's own failure is a TraceError, not a hang", async () => {
  const { port } = joined();
  const reading = receiveTrace(port, {});
  port.onerror({ message: "SyntaxError in the worker", preventDefault() {} });
  await assert.rejects(reading, (e) => e.name === "TraceError" && /worker failed/.test(e.message));
});
