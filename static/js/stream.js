// Reading POST /api/trace/stream (docs/trace-format.md): Server-Sent Events over fetch, so
// the request can carry a JSON body and be cancelled with an AbortController. The SSE
// framing is parsed by eventsource-parser; this module only turns its messages into the
// page's calls. No DOM: `node --test` covers it with a hand-made Response.
//
//   graph  -> onGraph({version, graph, ledger})        once, first
//   evaluate | seed | accumulate | ... -> onEvent(ev)   in order, each as it arrives
//   done   -> onEvent(ev), then the promise resolves     (ev carries output, grads, ...)
//   error  -> the promise rejects with a TraceError      (line and col as a 422 has them)
//
// The explorer reads it in a worker (stream.worker.js: relayRequest, relayTrace), which posts
// the graph in slices and the events in batches to the page (receiveTrace); the calls above
// are the same either way.

import { createParser } from "eventsource-parser";
import { TraceError } from "./api.js";
import { abortError, yieldToPage } from "./slices.js";

const PART = 32 * 1024; // characters of the stream parsed at once

/** The server's error body of a refused request (422, 413, 415, 408) as a TraceError. */
async function refused(response) {
  const body = await response.json().catch(() => null);
  if (body?.error) return new TraceError(body.error);
  return new TraceError({ kind: `http ${response.status}`, message: `the server answered ${response.status}` });
}

/** Rejects with a TraceError unless `response` is a trace stream (a 200 of text/event-stream). */
export async function checkStream(response) {
  if (!response.ok) throw await refused(response);
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.startsWith("text/event-stream")) {
    // A proxy's HTML page, say: an answer, but not a trace.
    throw new TraceError({ kind: "bad_response", message: `the server answered ${response.status} without a trace stream` });
  }
}

/**
 * An SSE message's data parsed as JSON, or a TraceError ("bad_response") when it is not JSON
 * (the trace stream's and the training stream's readers both).
 */
export function messageData(message) {
  try {
    return JSON.parse(message.data);
  } catch {
    return new TraceError({ kind: "bad_response", message: `the stream sent a ${message.event ?? "message"} that is not JSON` });
  }
}

/**
 * The SSE loop both streams share (the trace's and the training's): read `response` to its
 * end, each message's data parsed as JSON and handed to `onMessage(name, data)` (name: the
 * SSE event's), which returns the event that ends the stream (its `done`) or nothing, and
 * may throw a TraceError to end it as failed. `onChunk()` after each piece read; the page
 * has a turn every `slice` ms. Resolves with the ending event; rejects with a TraceError (an
 * `error` event, a message that is not JSON, a stream that ended first, a refused request:
 * `what` names the stream in the message) or with the AbortError of the request's signal.
 */
export async function readEvents(response, { onMessage, onChunk, slice = 30, what = "trace" } = {}) {
  await checkStream(response);
  let done = null;
  let failure = null;
  const parser = createParser({
    onEvent(message) {
      if (done || failure) return;
      const data = messageData(message);
      if (data instanceof TraceError) failure = data;
      else if (message.event === "error") failure = new TraceError(data.error ?? data);
      else {
        try {
          done = onMessage(message.event, data) ?? null;
        } catch (error) {
          failure = error;
        }
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
  if (!done) throw new TraceError({ kind: "network", message: `the ${what} stream ended before its last event` });
  return done;
}

/**
 * Read a stream `response` (a fetch Response of POST /api/trace/stream) to its end. Calls
 * `onGraph(head)` and `onEvent(event)` as above; `onChunk()` after each piece read (the
 * page draws, or yields, between pieces). Resolves with the done event; rejects as
 * readEvents. Reading yields to the page every `slice` ms.
 */
export function readTraceStream(response, { onGraph, onEvent, onChunk, slice = 30 } = {}) {
  let sawGraph = false;
  return readEvents(response, {
    onChunk, slice, what: "trace",
    onMessage(name, data) {
      if (name === "graph") {
        sawGraph = true;
        onGraph?.(data);
        return null;
      }
      if (!sawGraph) throw new TraceError({ kind: "bad_response", message: "the stream sent events before its graph" });
      onEvent?.(data);
      return data.kind === "done" ? data : null;
    },
  });
}

/**
 * Stream the trace of `program` (POST /api/trace/stream); `fields` are more request fields
 * (forward mode's `mode` and `tangents`). Handlers as readTraceStream's. With `worker` (a
 * function making a Web Worker that runs stream.worker.js) the request is made, read and
 * parsed in that worker and handed over by receiveTrace (handlers as its; `onGraph` may
 * then return a promise), and aborting terminates the worker. Rejects with TraceError
 * (kind "network" when there was no answer at all) or AbortError.
 */
export async function streamTrace(program, output = null, { signal, fields = {}, worker, ...handlers } = {}) {
  const request = {
    url: "/api/trace/stream",
    init: {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ program, output, ...fields }), // fields: mode, tangents, ... (issue 9)
    },
  };
  const port = worker && startWorker(worker, request);
  if (port) return receiveTrace(port, { signal, ...handlers });
  let response;
  try {
    response = await fetch(request.url, { ...request.init, signal });
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

// ---------------------------------------------------------------- reading in a worker

// A 100,000-node trace's graph event is about 70 MB of JSON: parsed on the page's main
// thread it was one task of seconds. A worker (stream.worker.js) makes the request, reads
// and parses the stream (relayTrace) and posts the graph back a slice at a time, then the
// events in batches; the page takes them (receiveTrace) a few milliseconds at a time. Not
// one big postMessage: the receiving side deserializes a message in one task. Not a fetch
// body transferred to the worker either: its bytes would still pass through the page.

/** A worker from `makeWorker()` sent `request` ({url, init}); null when there can be none (file://). */
function startWorker(makeWorker, request) {
  try {
    const port = makeWorker();
    port.postMessage({ request });
    return port;
  } catch {
    return null;
  }
}

// Items per posted slice of the graph, and events per posted batch: each message costs the
// page a few milliseconds to receive.
export const RELAY_PART = 500;
export const RELAY_BATCH = 1000;

/**
 * Worker side: make `request` ({url, init}: fetch's arguments) with `fetcher`, then
 * relayTrace its answer to `post`.
 */
export async function relayRequest(request, post, { fetcher = fetch, ...options } = {}) {
  let response;
  try {
    response = await fetcher(request.url, request.init);
  } catch (error) {
    return post({ type: "error", detail: { kind: "network", message: `could not reach the server (${error.message})` } });
  }
  return relayTrace(response, post, options);
}

/**
 * Worker side: read the answer `response` of POST /api/trace/stream (a fetch Response) and
 * `post` it as messages: {type: "head", head (all but the
 * graph), graph (its small fields), sliced (names of its big lists), counts}, then {type:
 * "part", key, items} (at most `part` items each), {type: "graph"} (the graph is whole),
 * {type: "events", events} (batches of at most `batch` events, or what arrived within
 * `every` ms), {type: "end"} after the done event; {type: "error", detail} on any failure
 * (a refused request's or an error event's detail, as readTraceStream's TraceError, or
 * kind "network").
 */
export async function relayTrace(response, post, { part = RELAY_PART, batch = RELAY_BATCH, every = 50 } = {}) {
  let events = [];
  let flushed = performance.now();
  const flush = () => {
    if (events.length) post({ type: "events", events });
    events = [];
    flushed = performance.now();
  };
  try {
    await readTraceStream(response, {
      slice: Infinity, // a worker has no page to let through
      onGraph: (head) => {
        const { graph, ...rest } = head;
        const sliced = Object.keys(graph).filter((k) => Array.isArray(graph[k]) && graph[k].length > part);
        const small = Object.fromEntries(Object.entries(graph).filter(([k]) => !sliced.includes(k)));
        const counts = Object.fromEntries(sliced.map((k) => [k, graph[k].length]));
        post({ type: "head", head: rest, graph: small, sliced, counts });
        for (const key of sliced) {
          for (let at = 0; at < graph[key].length; at += part) post({ type: "part", key, items: graph[key].slice(at, at + part) });
        }
        post({ type: "graph" });
      },
      onEvent: (ev) => {
        events.push(ev);
        if (events.length >= batch || ev.kind === "done") flush();
      },
      onChunk: () => performance.now() - flushed > every && flush(),
    });
    flush();
    post({ type: "end" });
  } catch (error) {
    flush();
    post({ type: "error", detail: error.detail ?? { kind: "network", message: `the trace stream broke off (${error.message})` } });
  }
}

/**
 * Page side: take relayTrace's messages from `port` (a Worker: onmessage, onerror,
 * terminate) and call `onGraph(head)` (awaited: it may take several tasks) once the graph
 * is whole, `onEvent(ev)` for each event in order, `onProgress({key, received, total})` as
 * the graph's slices arrive. Works `budget` ms at a time, then awaits `pause()`. Resolves
 * with the done event; rejects with a TraceError, or with an AbortError once `signal`
 * aborts. The worker is terminated when it is over, either way.
 */
export function receiveTrace(port, { onGraph, onEvent, onProgress, signal, budget = 12, pause = yieldToPage } = {}) {
  return new Promise((resolve, reject) => {
    const queue = [];
    let read = 0;
    let wake = null;
    let over = false;
    const stop = (error, value) => {
      if (over) return;
      over = true;
      port.terminate?.();
      signal?.removeEventListener("abort", aborted);
      if (error) reject(error);
      else resolve(value);
    };
    const aborted = () => stop(abortError());
    if (signal?.aborted) return aborted();
    signal?.addEventListener("abort", aborted);
    port.onmessage = ({ data }) => {
      queue.push(data);
      wake?.();
    };
    port.onerror = (event) => {
      event?.preventDefault?.();
      stop(new TraceError({ kind: "page", message: `the stream's worker failed (${event?.message ?? "no message"})` }));
    };

    const next = async () => {
      while (read === queue.length) await new Promise((r) => { wake = r; });
      wake = null;
      const message = queue[read];
      queue[read++] = null; // received: let it go
      return message;
    };
    let since = performance.now();
    const turn = async () => {
      if (performance.now() - since < budget) return;
      await pause();
      if (over) throw abortError();
      since = performance.now();
    };

    async function pump() {
      let head = null;
      let counts = {}; // items each sliced list of the graph will have
      let done = null;
      for (;;) {
        const m = await next();
        if (over) return null;
        if (m.type === "head") {
          head = { ...m.head, graph: { ...m.graph } };
          for (const key of m.sliced) head.graph[key] = [];
          counts = m.counts;
        } else if (m.type === "part") {
          const list = head.graph[m.key];
          for (const item of m.items) list.push(item);
          onProgress?.({ key: m.key, received: list.length, total: counts[m.key] });
        } else if (m.type === "graph") {
          await onGraph?.(head);
          if (over) return null;
          since = performance.now();
        } else if (m.type === "events") {
          for (let i = 0; i < m.events.length; i++) {
            const ev = m.events[i];
            onEvent?.(ev);
            if (ev.kind === "done") done = ev;
            if ((i & 127) === 127) await turn();
          }
        } else if (m.type === "end") {
          return done;
        } else if (m.type === "error") {
          throw new TraceError(m.detail);
        }
        await turn();
      }
    }
    pump().then((done) => stop(null, done), (error) => stop(error));
  });
}
