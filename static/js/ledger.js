// The ledger over the timeline: how many bytes of activations the backward pass is keeping
// after each step (docs/trace-format.md, "Ledger"). A pure fold of the trace, no DOM, so
// `node --test` covers it; the engine's `peak_activation_bytes` is the same walk done ahead
// (engine/trace/ledger.py), and the browser test checks the two agree.

/**
 * Live activation bytes after each step of `trace` (the body of POST /api/trace):
 * {live: number[] (live[k] after events[:k], k = 0..events.length), peak, peakStep, totals}.
 * An activation is live from its evaluate event (its recompute event when the forward pass
 * did not keep it) until the backward step of its `released_by` node is done.
 */
export function ledgerSeries(trace) {
  const nodes = trace.graph.nodes;
  const byId = new Map(nodes.map((n) => [n.id, n])); // a Map: 100,000 keys are common
  const index = (id) => byId.get(id)?.index;
  const blockEnd = {}; // node id -> index just past its checkpoint block
  for (const block of trace.graph.blocks ?? []) {
    const end = Math.max(...block.nodes.map(index)) + 1;
    for (const id of block.nodes) blockEnd[id] = end;
  }
  // activations still to free, by their releasing node's index, largest first
  const pending = nodes
    .filter((n) => n.ledger?.activation_bytes && n.ledger.released_by)
    .map((n) => ({ at: index(n.ledger.released_by), bytes: n.ledger.activation_bytes }))
    .sort((a, b) => b.at - a.at);
  let live = 0;
  let freed = 0; // pending[:freed] are freed (an index, not shift(): that is O(n) each)
  const series = [0];
  // every releasing step with an index above `bound` is done: free what it kept
  const releaseAbove = (bound) => {
    while (freed < pending.length && pending[freed].at > bound) live -= pending[freed++].bytes;
  };
  for (const ev of trace.events) {
    const led = byId.get(ev.node)?.ledger;
    // hvp mode's forward over reverse computes the backward graph's values as `tangent` events
    // (value + tangent·ε): they are its forward pass, kept for its reverse over reverse
    if ((ev.kind === "evaluate" || ev.kind === "tangent") && led && !led.recomputed) live += led.activation_bytes;
    else if (ev.kind === "accumulate" || ev.kind === "unbroadcast") releaseAbove(index(ev.node));
    else if (ev.kind === "recompute") {
      releaseAbove(blockEnd[ev.node] - 1);
      if (led?.recomputed) live += led.activation_bytes;
    } else if (ev.kind === "done") releaseAbove(-1);
    series.push(live);
  }
  let peakStep = 0;
  series.forEach((v, k) => { if (v > series[peakStep]) peakStep = k; });
  return { live: series, peak: series[peakStep], peakStep, totals: trace.ledger ?? null };
}

/**
 * Whether `trace` is a forward-mode walk: `tangent` events and no backward pass (no `seed`).
 * Such a walk keeps no tensors for a backward pass, so the page shows no memory chart; hvp
 * mode (tangent events, then a seed) has one.
 */
export function forwardOnly(trace) {
  const events = trace?.events ?? [];
  return events.some((e) => e.kind === "tangent") && !events.some((e) => e.kind === "seed");
}

/** Bytes as people read them: 432 B, 3.1 KB, 12.6 MB (powers of 1,000, as the docs). */
export function formatBytes(bytes) {
  const units = ["B", "KB", "MB", "GB"];
  let v = bytes;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) { v /= 1000; u += 1; }
  return u === 0 ? `${v}\u00a0B` : `${v.toPrecision(3)}\u00a0${units[u]}`;
}

/** FLOPs as people read them: 840 FLOPs, 1.23 MFLOPs. */
export function formatFlops(flops) {
  const units = ["", "k", "M", "G", "T"];
  let v = flops;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) { v /= 1000; u += 1; }
  return `${u === 0 ? v : v.toPrecision(3)}\u00a0${units[u]}FLOPs`;
}
