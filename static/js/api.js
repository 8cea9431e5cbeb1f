// Talking to the server: POST /api/trace (docs/trace-format.md).
// Every failure is a TraceError whose `detail` has the shape of the server's error body,
// {kind, message, line, col}, with line and col null when the failure is not in the text:
//   - the server's own answer to a bad program (422, or any answer with an error body),
//   - kind "network" only when fetch itself failed (no answer at all),
//   - kind "bad_response" for a 2xx answer that is not a trace (a proxy's HTML page).

/** A failed trace request; `detail` is {kind, message, line, col, end_line, end_col}. */
export class TraceError extends Error {
  constructor(detail) {
    super(detail.message || "error in the program");
    this.name = "TraceError";
    this.detail = { line: null, col: null, ...detail };
  }
}

/** The body of a non-2xx answer as an error detail; FastAPI's own 422s have `detail`. */
function errorDetail(status, body) {
  if (body && body.error) return body.error;
  const detail = body && body.detail;
  const message = Array.isArray(detail) ? detail.map((d) => d.msg).join("; ") : detail;
  return { kind: `http ${status}`, message: message || `the server answered ${status}` };
}

/** True for an answer with the parts the page needs (a graph and events). */
function isTrace(body) {
  return Boolean(body && body.graph && Array.isArray(body.graph.nodes)
    && Array.isArray(body.graph.edges) && Array.isArray(body.events));
}

/**
 * The whole trace for `program`. Rejects with TraceError (see above), or with the
 * AbortError of `signal`.
 */
export async function fetchTrace(program, output = null, { signal } = {}) {
  let response;
  try {
    response = await fetch("/api/trace", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ program, output }),
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new TraceError({ kind: "network", message: `could not reach the server (${error.message})` });
  }
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    if (error.name === "AbortError") throw error;
    // a proxy's HTML error page: fall through with no body
  }
  if (!response.ok) throw new TraceError(errorDetail(response.status, body));
  if (!isTrace(body)) {
    throw new TraceError({ kind: "bad_response", message: `the server answered ${response.status} without a trace` });
  }
  return body;
}

/**
 * One node's full value and final adjoint (POST /api/trace/node), for a tensor over the
 * inline limit: {node, shape, value, adjoint}. Rejects with TraceError as fetchTrace does.
 */
export function fetchNode(program, output, node, { signal } = {}) {
  return postJson("/api/trace/node", { program, output, node }, signal);
}

/**
 * The quiz's mistakes table (POST /api/quiz/mistakes, engine/mistakes.py): {adjoint: {node
 * id: [{kind, value, text}]}, value: {...}}. Rejects with TraceError as fetchTrace does.
 */
export function fetchMistakes(program, output, { signal } = {}) {
  return postJson("/api/quiz/mistakes", { program, output }, signal);
}

/** POST `body` as JSON to `path`: the answer's body, or TraceError (as fetchTrace's). */
async function postJson(path, body, signal) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new TraceError({ kind: "network", message: `could not reach the server (${error.message})` });
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new TraceError(errorDetail(response.status, answer));
  return answer;
}
