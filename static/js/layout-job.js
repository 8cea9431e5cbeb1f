// A layout job: the dagre layout of a walk's graph in a module Web Worker
// (layout.worker.js), with a time budget, an estimated progress, and cancellation (the
// next Trace terminates the worker). The page's main thread never runs dagre for the
// explorer, so no layout freezes it. Where workers are unavailable it lays out in place.

import { failedPlan, layoutGraph, widestLines } from "./layout.js";

// However well the cost was predicted, a layout running this long is stopped.
export const LAYOUT_TIMEOUT_MS = 15_000;

/**
 * Lay out `graph` with the plan's `refs` and `cost` (layout.js predictPlan), boxes sized
 * from `events` so far. `onProgress(fraction)` is called about 5 times a second with the
 * elapsed share of the predicted time (an estimate: dagre reports none), capped at 0.95.
 * `onDone(plan)` gets {layout, refs, cost} or a "layout_failed" plan (an error, or over
 * `timeout` ms). `upright` as layoutGraph's. Returns {cancel()}: after cancel nothing is called.
 */
export function startLayout(graph, events, { refs, cost, budget, onProgress, onDone, timeout = LAYOUT_TIMEOUT_MS, upright = false }) {
  const chars = widestLines(graph, events);
  const started = performance.now();
  let worker = null;
  let over = false;
  const finish = (plan) => {
    if (over) return;
    cancel();
    if (plan.layout) {
      const byId = Object.fromEntries(graph.nodes.map((n) => [n.id, n]));
      for (const n of plan.layout.nodes) n.node = byId[n.id];
      // A grouped graph (groups.js viewGraph): which box stands for a hidden node, and
      // which drawn edge for an edge inside or into a box.
      plan.layout.rep = graph.rep ?? null;
      plan.layout.alias = graph.alias ?? null;
      plan.layout.ms = Math.round(performance.now() - started);
    }
    onDone(plan);
  };
  const ticker = setInterval(() => {
    const elapsed = performance.now() - started;
    if (elapsed > timeout) {
      return finish(failedPlan(graph, cost, budget, `it took longer than ${Math.round(timeout / 1000)} s`));
    }
    onProgress?.(Math.min(0.95, elapsed / Math.max(cost.ms, 1)));
  }, 200);
  function cancel() {
    over = true;
    clearInterval(ticker);
    worker?.terminate();
  }
  try {
    worker = new Worker(new URL("./layout.worker.js", import.meta.url), { type: "module" });
  } catch {
    worker = null;
  }
  if (worker) {
    worker.onmessage = ({ data }) => finish(data.error
      ? failedPlan(graph, cost, budget, data.error) : { layout: data.layout, refs, cost });
    worker.onerror = (event) => {
      event.preventDefault();
      finish(failedPlan(graph, cost, budget, event.message || "the layout worker failed"));
    };
    const { nodes, edges, clusters, frameOf } = graph;
    worker.postMessage({ graph: { nodes, edges, clusters, frameOf }, chars, refs, upright });
  } else {
    // No worker (an old browser, a page from file://): lay out after this task.
    setTimeout(() => {
      try {
        finish({ layout: layoutGraph(graph, { chars, refs, upright }), refs, cost });
      } catch (error) {
        finish(failedPlan(graph, cost, budget, error));
      }
    }, 0);
  }
  return { cancel };
}
