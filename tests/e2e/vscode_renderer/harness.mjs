// The page of tests/e2e/test_widget_vscode.py (bundled by the test, never shipped): the host's
// half and the renderer's half of VS Code's widget bridge joined by a MessageChannel, on the
// kernel the test started (?kernel=ID&token=T). window.vscode = { run(code), errors } once the
// renderer is connected; body[data-error] if it could not start.
import * as ipywidgets from "./ipywidgets.js";   // @vscode/jupyter-ipywidgets8's dist, copied
import { connectHost } from "./host.mjs";
import { startRenderer } from "./renderer.mjs";

const params = new URLSearchParams(location.search);
const token = params.get("token");
const kernel = { id: params.get("kernel"), name: "python3" };
const baseUrl = new URL("/", location.href).href;   // the Jupyter server serving this page
const session = crypto.randomUUID();   // one session: the renderer's messages are the host's
// The host's answer to the renderer's widget script request: anywidget's nbextension, found by
// the test in the kernel's environment as VS Code finds it (share/jupyter/nbextensions).
const scripts = { anywidget: new URL("nbextensions/anywidget/index.js", location.href).href };

async function main() {
  const channel = new MessageChannel();
  const rendering = startRenderer({ ipywidgets, port: channel.port2, baseUrl, token, kernel,
    session, scripts, outputs: document.querySelector("#outputs") });
  const run = await connectHost({ wsUrl: baseUrl.replace(/^http/, "ws"), kernelId: kernel.id,
    session, token, port: channel.port1 });
  const { errors } = await rendering;
  window.vscode = { run, errors };
}

main().catch((e) => { document.body.dataset.error = String(e); throw e; });
