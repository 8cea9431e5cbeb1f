// Reading POST /api/trace/stream (static/js/stream.js): SSE pieces cut anywhere, the graph
// first, every event in order, done resolves, an error event rejects like a 422.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readTraceStream } from "../../static/js/stream.js";

const GRAPH = { version: 1, graph: { nodes: [{ id: "n0" }], edges: [] }, ledger: null };
const sse = (kind, data, id) => `event: ${kind}\ndata: ${JSON.stringify(data)}\n${id === undefined ? "" : `id: ${id}\n`}\n`;
const EVENTS = [
  { seq: 0, kind: "evaluate", node: "n0", value: 2 },
  { seq: 1, kind: "seed", node: "n0", adjoint: 1 },
  { seq: 2, kind: "done", output: { name: "a", node: "n0", value: 2 }, grads: { a: 1 }, first_non_finite: null },
];
const WHOLE = sse("graph", GRAPH) + EVENTS.map((e) => sse(e.kind, e, e.seq)).join("");

/** A streamed 200 answer whose body arrives in `pieces` (strings). */
function answer(pieces, { status = 200, body } = {}) {
  if (body !== undefined) return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  return new Response(stream, { status, headers: { "Content-Type": "text/event-stream" } });
}

async function read(pieces, options) {
  const seen = [];
  const done = await readTraceStream(answer(pieces, options), {
    onGraph: (head) => seen.push(["graph", head]),
    onEvent: (ev) => seen.push([ev.kind, ev]),
  });
  return { done, seen };
}

test("the graph first, then every event in order; done resolves with its results", async () => {
  const { done, seen } = await read([WHOLE]);
  assert.deepEqual(seen.map(([k]) => k), ["graph", "evaluate", "seed", "done"]);
  assert.deepEqual(seen[0][1], GRAPH);
  assert.deepEqual(done.grads, { a: 1 });
});

test("pieces cut anywhere, even inside a line or a character, read the same", async () => {
  const bytes = new TextEncoder().encode(WHOLE.replace('"a"', '"ā"')); // a 2-byte character
  for (const size of [1, 3, 7, 64]) {
    const pieces = [];
    for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.slice(i, i + size));
    const stream = new ReadableStream({ start(c) { pieces.forEach((p) => c.enqueue(p)); c.close(); } });
    const seen = [];
    const sent = new Response(stream, { headers: { "Content-Type": "text/event-stream; charset=utf-8" } });
    const done = await readTraceStream(sent, { onEvent: (ev) => seen.push(ev.kind) });
    assert.deepEqual(seen, ["evaluate", "seed", "done"], `size ${size}`);
    assert.equal(done.output.name, "ā");
  }
});

test("an error event rejects with its detail, line and column as a 422's", async () => {
  const error = { kind: "timeout", message: "the trace ran too long", line: 3, col: 4, end_line: 3, end_col: 9, hint: null };
  await assert.rejects(read([sse("graph", GRAPH), sse("evaluate", EVENTS[0], 0), sse("error", { error })]), (e) => {
    assert.equal(e.name, "TraceError");
    assert.deepEqual(e.detail, error);
    return true;
  });
});

test("a refused request (422 before the stream) rejects with the server's error", async () => {
  const error = { kind: "syntax", message: "invalid syntax", line: 2, col: 8, end_line: 2, end_col: 9, hint: null };
  await assert.rejects(read([], { status: 422, body: { error } }), (e) => e.detail.line === 2 && e.detail.kind === "syntax");
});

test("a stream that stops before done, or sends events before its graph, is an error", async () => {
  await assert.rejects(read([sse("graph", GRAPH), sse("evaluate", EVENTS[0], 0)]), (e) => e.detail.kind === "network");
  await assert.rejects(read([sse("evaluate", EVENTS[0], 0)]), (e) => e.detail.kind === "bad_response");
  await assert.rejects(read(["event: graph\ndata: {not json\n\n"]), (e) => e.detail.kind === "bad_response");
});

test("a 200 answer that is not an event stream (a proxy's page) is a bad response", async () => {
  const page = new Response("<html>hi</html>", { status: 200, headers: { "Content-Type": "text/html" } });
  await assert.rejects(readTraceStream(page, {}), (e) => e.detail.kind === "bad_response");
});

test("a big piece is read in parts, with turns for the page between them", async () => {
  const many = Array.from({ length: 5000 }, (_, i) => ({ seq: i, kind: "evaluate", node: "n0", value: i }));
  const text = sse("graph", GRAPH) + many.map((e) => sse(e.kind, e, e.seq)).join("") + sse("done", { seq: 5000, kind: "done", grads: {} }, 5000);
  let chunks = 0;
  let count = 0;
  await readTraceStream(answer([text]), { onEvent: () => { count += 1; }, onChunk: () => { chunks += 1; } });
  assert.equal(count, 5001);
  assert.ok(chunks > 5, `one piece of ${text.length} characters fed in ${chunks} parts`);
});
