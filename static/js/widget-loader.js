// The notebook widget's `_esm` (issue 18 §2, its size): anywidget sends a widget's ES module
// in the state of every instance (JupyterLab, Notebook 7 and VS Code import it again for each;
// the notebook file saves it again for each), so the module sent is this loader with the
// bundle (static/dist/widget.js, 0.5 MB) gzipped inside as base64, 0.22 MB: server/widget.py
// fills in BUNDLE and KEY. It is unpacked in the browser (DecompressionStream: nothing fetched,
// offline) and imported from a blob: URL, as anywidget imports `_esm` itself; the module is
// kept on the page under KEY (the bundle's digest), so a page with several walks unpacks and
// evaluates it once. Not bundled by esbuild: it is a template read by server/widget.py.

const BUNDLE = "__GRADWALK_BUNDLE__";
const KEY = "__GRADWALK_KEY__";

async function unpack() {
  const bytes = Uint8Array.from(atob(BUNDLE), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const text = await new Response(stream).text();
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    return (await import(/* webpackIgnore: true */ url)).default;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function widget() {
  const loaded = (globalThis.__gradwalkWidget ??= new Map());
  if (!loaded.has(KEY)) loaded.set(KEY, unpack());
  return loaded.get(KEY);
}

export default {
  async render(view) {
    return (await widget()).render(view);
  },
};
