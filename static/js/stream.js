// Reading POST /api/trace/stream (docs/trace-format.md): Server-Sent Events over fetch, so
// the request can carry a JSON body and be cancelled with an AbortController. The SSE
// framing is parsed by eventsource-parser; this module only turns its messages into the
// page's calls. No DOM: `node --test` covers it with a hand-made Response.
//
//   graph  -> onGraph({version, graph, ledger})        once, first
//   evaluate | seed | accumulate | ... -> onEvent(ev)   in order, each as it arrives
//   done   -> onEvent(ev), then the promise resolves     (ev carries output, grads, ...)
//   error  -> the promise rejects with a TraceError      (line and col as a 422 has them)

import { createParser } from "eventsource-parser";
import { TraceError } from "./api.js";

const PART = 32 * 1024; // characters of the stream parsed at once

/** The server's error body of a refused request (422, 413, 415, 408) as a TraceError. */
async function refused(response) {
  const body = await response.json().catch(() => null);
  if (body?.error) return new TraceError(body.error);
  return new TraceError({ kind: `http ${response.status}`, message: `the server answered ${response.status}` });
}

/**
 * Read a stream `response` (a fetch Response of POST /api/trace/stream) to its end. Calls
 * `onGraph(head)` and `onEvent(event)` as above; `onChunk()` after each piece read (the
 * page draws, or yields, between pieces). Resolves with the done event; rejects with a
 * TraceError (an `error` event, a stream that ended without done, a refused request) or
 * with the AbortError of the request's signal. Reading yields to the page every `slice` ms.
 */
export async function readTraceStream(response, { onGraph, onEvent, onChunk, slice = 30 } = {}) {
  if (!response.ok) throw await refused(response);
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.startsWith("text/event-stream")) {
    // A proxy's HTML page, say: an answer, but not a trace.
    throw new TraceError({ kind: "bad_response", message: `the server answered ${response.status} without a trace stream` });
  }
  let done = null;
  let failure = null;
  let sawGraph = false;
  const parser = createParser({
    onEvent(message) {
      if (done || failure) return;
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        failure = new TraceError({ kind: "bad_response", message: `the stream sent a ${message.event ?? "message"} that is not JSON` });
        return;
      }
      if (message.event === "error") {
        failure = new TraceError(data.error ?? data);
      } else if (message.event === "graph") {
        sawGraph = true;
        onGraph?.(data);
      } else if (!sawGraph) {
        failure = new TraceError({ kind: "bad_response", message: "the stream sent events before its graph" });
      } else {
        onEvent?.(data);
        if (data.kind === "done") done = data;
      }
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  // Pieces already received are read without leaving the task (read() answers at once): a
  // big trace would be one long task. Past `slice` ms the reader lets the page have a turn.
  let since = performance.now();
  try {
    while (!done && !failure) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      const text = decoder.decode(value, { stream: true });
      // A piece may hold megabytes: fed a part at a time, with a turn for the page between.
      for (let at = 0; at < text.length && !done && !failure; at += PART) {
        parser.feed(text.slice(at, at + PART));
        onChunk?.();
        if (performance.now() - since > slice) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          since = performance.now();
        }
      }
    }
  } finally {
    if (done || failure) reader.cancel().catch(() => {});
  }
  if (failure) throw failure;
  if (!done) throw new TraceError({ kind: "network", message: "the trace stream ended before its last event" });
  return done;
}

/**
 * Stream the trace of `program` (POST /api/trace/stream); `fields` are more request fields
 * (forward mode's `mode` and `tangents`). Handlers as readTraceStream's.
 * Rejects with TraceError (kind "network" when there was no answer at all) or AbortError.
 */
export async function streamTrace(program, output = null, { signal, fields = {}, ...handlers } = {}) {
  let response;
  try {
    response = await fetch("/api/trace/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ program, output, ...fields }), // fields: mode, tangents, ... (issue 9)
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new TraceError({ kind: "network", message: `could not reach the server (${error.message})` });
  }
  try {
    return await readTraceStream(response, handlers);
  } catch (error) {
    if (error.name === "AbortError" || error instanceof TraceError) throw error;
    throw new TraceError({ kind: "network", message: `the trace stream broke off (${error.message})` });
  }
}
