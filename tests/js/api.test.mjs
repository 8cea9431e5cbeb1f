// fetchTrace's failures, with a stand-in fetch: only a request that got no answer is a
// network error; the server's errors keep their kind, and line/col may be null.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { fetchTrace, TraceError } from "../../static/js/api.js";

const realFetch = globalThis.fetch;
afterEach(() => { globalThis.fetch = realFetch; });

const answer = (status, body, type = "application/json") => async () =>
  new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "Content-Type": type } });

async function failure(program = "x = 1.0\n") {
  try {
    await fetchTrace(program);
  } catch (error) {
    return error;
  }
  assert.fail("fetchTrace resolved");
}

test("a trace comes back as it was sent", async () => {
  const trace = { version: 1, graph: { nodes: [], edges: [] }, events: [], output: null, grads: {} };
  globalThis.fetch = answer(200, trace);
  assert.deepEqual(await fetchTrace("x = 1.0\n"), trace);
});

test("no answer at all is a network error", async () => {
  globalThis.fetch = async () => { throw new TypeError("Failed to fetch"); };
  const error = await failure();
  assert.ok(error instanceof TraceError);
  assert.equal(error.detail.kind, "network");
  assert.match(error.detail.message, /could not reach the server \(Failed to fetch\)/);
  assert.equal(error.detail.line, null);
});

test("the server's program error keeps its kind and place", async () => {
  globalThis.fetch = answer(422, { error: { kind: "syntax", message: "invalid syntax", line: 2, col: 6 } });
  const error = await failure();
  assert.deepEqual(error.detail, { kind: "syntax", message: "invalid syntax", line: 2, col: 6 });
});

test("an error that is not in the text has null line and col", async () => {
  globalThis.fetch = answer(422, { error: { kind: "unknown_output", message: "no value named out" } });
  assert.deepEqual((await failure()).detail,
    { kind: "unknown_output", message: "no value named out", line: null, col: null });
  globalThis.fetch = answer(502, "<html>Bad gateway</html>", "text/html");
  assert.deepEqual((await failure()).detail,
    { kind: "http 502", message: "the server answered 502", line: null, col: null });
});

test("a 200 that is not a trace is a bad response, not a network error", async () => {
  globalThis.fetch = answer(200, "<html>login</html>", "text/html");
  assert.equal((await failure()).detail.kind, "bad_response");
  globalThis.fetch = answer(200, { hello: 1 });
  assert.equal((await failure()).detail.kind, "bad_response");
});

test("an aborted request rejects with the AbortError, for the page to ignore", async () => {
  globalThis.fetch = async () => { throw new DOMException("aborted", "AbortError"); };
  assert.equal((await failure()).name, "AbortError");
});
