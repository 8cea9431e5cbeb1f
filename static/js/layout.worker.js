// The layout worker: runs layout.js's dagre layout off the page's main thread, so the page
// answers (scrolls, steps, cancels) while a big graph is laid out. One message in
// ({graph, chars, refs, upright}), one out ({layout, ms} or {error}); the page terminates the
// worker to cancel it (static/js/layout-job.js). Bundled as static/dist/layout.worker.js.

import { layoutGraph } from "./layout.js";

self.onmessage = ({ data }) => {
  const start = performance.now();
  try {
    const layout = layoutGraph(data.graph, { chars: data.chars, refs: data.refs, upright: data.upright });
    // The graph's nodes travel back once already: the page links its own copies again.
    for (const n of layout.nodes) n.node = undefined;
    self.postMessage({ layout, ms: performance.now() - start });
  } catch (error) {
    self.postMessage({ error: String(error?.message ?? error) });
  }
};
