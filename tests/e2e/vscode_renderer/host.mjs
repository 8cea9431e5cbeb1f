// The extension host's half of VS Code's widget bridge, for tests/e2e/test_widget_vscode.py.
// In VS Code the Jupyter extension owns the kernel's socket and runs the cells; the notebook
// renderer (renderer.mjs) never reaches the kernel itself: its kernel connection talks to a
// stand-in socket whose frames the extension relays both ways over postMessage. Here the two
// halves share one page and a MessageChannel carries the frames, so every message the widget
// sees has crossed the same kind of boundary as in VS Code.

/** An execute_request in the kernel protocol's JSON form (5.3), as a cell sends it. */
function executeRequest(code, session) {
  return {
    header: { msg_id: crypto.randomUUID(), msg_type: "execute_request", username: "host",
      session, date: new Date().toISOString(), version: "5.3" },
    parent_header: {}, metadata: {}, channel: "shell", buffers: [],
    content: { code, silent: false, store_history: true, user_expressions: {},
      allow_stdin: false, stop_on_error: true },
  };
}

/**
 * A run's bookkeeping: what it printed, its error; done once both its execute_reply (shell)
 * and its idle status (iopub, after all its outputs) arrived: the two channels are not
 * ordered with each other, so the reply alone may come before the printed text.
 */
function track(run, msg) {
  const type = msg.header.msg_type;
  if (type === "stream") run.out += msg.content.text;
  if (type === "error") run.error = `${msg.content.ename}: ${msg.content.evalue}`;
  if (type === "execute_reply") run.replied = true;
  if (type === "status" && msg.content.execution_state === "idle") run.idle = true;
  if (!(run.replied && run.idle)) return false;
  if (run.error) run.reject(new Error(run.error)); else run.resolve(run.out);
  return true;
}

/**
 * Opens the kernel's socket at `wsUrl` (ws://host/base/, no subprotocol: the JSON frames VS
 * Code's stand-in socket relays), relays its frames through `port`, and resolves once open with
 * run(code): runs `code` as a cell (from the host, not the renderer) and resolves with what it
 * printed, or rejects with the kernel's error. Rejects if the socket cannot open.
 */
export function connectHost({ wsUrl, kernelId, session, token, port }) {
  const url = `${wsUrl}api/kernels/${kernelId}/channels?session_id=${session}&token=${token}`;
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";   // binary frames (widget buffers) are relayed untouched
  const runs = new Map();   // msg_id of an execute_request -> its bookkeeping
  socket.onmessage = ({ data }) => {
    port.postMessage({ kind: "frame", data });
    if (typeof data !== "string") return;
    const msg = JSON.parse(data);
    const id = msg.parent_header?.msg_id;
    if (runs.has(id) && track(runs.get(id), msg)) runs.delete(id);
  };
  port.onmessage = ({ data }) => { if (data.kind === "frame") socket.send(data.data); };
  const run = (code) => new Promise((resolve, reject) => {
    const msg = executeRequest(code, session);
    runs.set(msg.header.msg_id, { out: "", resolve, reject });
    socket.send(JSON.stringify(msg));
  });
  return new Promise((resolve, reject) => {
    socket.onopen = () => { port.postMessage({ kind: "open" }); resolve(run); };
    socket.onerror = () => reject(new Error(`the kernel's socket ${url} did not open`));
  });
}
