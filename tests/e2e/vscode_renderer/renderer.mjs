// The notebook renderer's half of VS Code's widget bridge, for tests/e2e/test_widget_vscode.py:
// what vscode-jupyter's webview-side ipywidgets kernel/manager.ts does with the bundle
// @vscode/jupyter-ipywidgets8 ships (dist/ipywidgets.js): activate() and load() it, build its
// WidgetManager on a @jupyterlab/services KernelConnection whose socket is a stand-in relayed by
// the host (host.mjs), load third-party widget code (anywidget's) through require.js from the
// path the host names, and show a view of a widget in a new output each time the kernel
// displays its model.
import { KernelConnection, ServerConnection } from "@jupyterlab/services";

const WIDGET_MIME = "application/vnd.jupyter.widget-view+json";

/** A WebSocket look-alike for KernelConnection: frames go to and come from the host's port. */
function proxySocketClass(port) {
  return class ProxySocket {
    constructor() {
      this.protocol = "";   // the JSON wire format, as the relayed socket speaks it
      this.readyState = 0;
      port.onmessage = ({ data }) => {
        if (data.kind === "open") { this.readyState = 1; this.onopen?.({ target: this }); }
        if (data.kind === "frame") this.onmessage?.({ target: this, data: data.data });
      };
    }
    send(data) { port.postMessage({ kind: "frame", data }); }
    close() { this.readyState = 3; }
  };
}

/**
 * The widget manager's script loader, as VS Code's (kernel/scriptManager.ts) once the host has
 * answered: a third-party module's script URL registered as a require.js path (without `.js`,
 * as require.js wants), its load failures pushed to `errors`.
 */
function requireScriptLoader(scripts, errors) {
  const registered = new Set();
  return {
    widgetsRegisteredInRequireJs: registered,
    async loadWidgetScript(moduleName) {
      if (!(moduleName in scripts)) throw new Error(`no script for widget module ${moduleName}`);
      window.requirejs.config({ paths: { [moduleName]: scripts[moduleName].replace(/\.js$/, "") } });
      registered.add(moduleName);
    },
    successHandler() {},
    errorHandler: (className, moduleName, version, error) =>
      errors.push(`${moduleName}@${version} ${className}: ${error}`),
  };
}

/**
 * The renderer: `ipywidgets` is dist/ipywidgets.js's module, `scripts` maps a widget module's
 * name to its script's URL (the host's answer to a widget script request), `outputs` the
 * element the outputs go in. Returns { kernel, manager, errors } once the kernel is connected;
 * `errors` collects the widget manager's load failures.
 */
export async function startRenderer({ ipywidgets, port, baseUrl, token, kernel: model,
  session, scripts, outputs }) {
  ipywidgets.activate();
  window.vscIPyWidgets8.load();   // defines @jupyter-widgets/base, controls, output for require.js
  const settings = ServerConnection.makeSettings({
    baseUrl, token, wsUrl: "ws://relayed-by-the-host/", WebSocket: proxySocketClass(port) });
  const kernel = new KernelConnection({ model, serverSettings: settings, clientId: session,
    username: "renderer", handleComms: true });
  const errors = [];
  const scriptLoader = requireScriptLoader(scripts, errors);
  // as manager.ts builds it: kernel, container, script loader, logger, no saved widget state
  const manager = new window.vscIPyWidgets.WidgetManager(kernel, outputs, scriptLoader,
    () => {}, undefined);
  kernel.iopubMessage.connect((_, msg) => {
    const type = msg.header.msg_type;
    const data = (type === "display_data" || type === "execute_result") && msg.content.data[WIDGET_MIME];
    if (data) display(manager, data, outputs).catch((e) => errors.push(`display: ${e}`));
  });
  await new Promise((resolve) => {
    if (kernel.connectionStatus === "connected") resolve();
    kernel.connectionStatusChanged.connect((_, status) => status === "connected" && resolve());
  });
  return { kernel, manager, errors };
}

/** A view of the model in a new output, as vscode-jupyter's renderWidget does once the model is there. */
async function display(manager, data, outputs) {
  const output = document.createElement("div");
  output.className = "cell-output-ipywidget-background";
  outputs.append(output);
  const model = await manager.get_model(data.model_id);
  const view = await manager.create_view(model, { el: output });
  await manager.display_view(data, view, { node: output });
}
