// Talking to the server: POST /api/trace (docs/trace-format.md).

/** A program error the server located in the text (HTTP 422). */
export class ProgramError extends Error {
  constructor(detail) {
    super(detail.message || "error in the program");
    this.name = "ProgramError";
    this.detail = detail; // {kind, message, line, col, end_line, end_col}
  }
}

/** The body of a non-2xx answer as an error detail; FastAPI's own 422s have `detail`. */
function errorDetail(status, body) {
  if (body && body.error) return body.error;
  const detail = body && body.detail;
  const message = Array.isArray(detail) ? detail.map((d) => d.msg).join("; ") : detail;
  return { kind: `http ${status}`, message: message || `the server answered ${status}` };
}

/**
 * The whole trace for `program`. Rejects with ProgramError for a 422 (or any answer
 * that carries an error body) and with a plain Error when the server cannot be reached.
 */
export async function fetchTrace(program, output = null, { signal } = {}) {
  const response = await fetch("/api/trace", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ program, output }),
    signal,
  });
  let body = null;
  try {
    body = await response.json();
  } catch {
    // a proxy's HTML error page: fall through with no body
  }
  if (!response.ok) throw new ProgramError(errorDetail(response.status, body));
  return body;
}
