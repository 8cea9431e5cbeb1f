// Edit and diff (issue 16, section 2), without the DOM: node by node, which values and
// adjoints changed between two runs and by how much. `node --test` covers it
// (tests/js/diff.test.mjs).
//
// A run's numbers are its final ones: each node's value (its evaluate event) and its adjoint
// after the whole backward pass (the last seed / accumulate into it; a leaf's from the done
// event's grads). Nodes are matched by label (`a`, `e`, `c'`), which survives an edited
// literal or an inserted line (node ids shift). The teaching case: nudge a by h and the
// output moves by about h · ā (first order: ΔL = ā h + O(h²)).

import { isTensor } from "./format.js";
import { sinkOf } from "./graphwalk.js";

/**
 * {values: {id: v}, adjoints: {id: g}} of a trace (`graph` and `events`; the done event,
 * or the body's top-level `grads`, holds the leaves' gradients).
 */
export function finalNumbers(trace) {
  const values = {};
  const adjoints = {};
  for (const ev of trace.events) {
    if (ev.kind === "evaluate" || ev.kind === "tangent") values[ev.node] = ev.value;
    else if (ev.kind === "seed") adjoints[ev.node] = ev.adjoint;
    else if (ev.kind === "accumulate") adjoints[ev.input] = ev.adjoint_after;
  }
  const grads = trace.events.at(-1)?.grads ?? trace.grads ?? {};
  for (const n of trace.graph.nodes) {
    if (n.role === "leaf" && n.name in grads) adjoints[n.id] = grads[n.name];
  }
  return { values, adjoints };
}

/** The numbers of a scalar or an inlined tensor, flattened; null for a summarized tensor. */
function flat(x) {
  if (typeof x === "number") return [x];
  if (isTensor(x)) return x.data === null ? null : [x.data].flat(Infinity);
  return null;
}

/**
 * One number's change: {before, after, delta (after - before, or the largest elementwise
 * change of a tensor, signed), changed}; null when the node has none in either run. A
 * tensor whose shape changed, or that travels as a summary, is `changed` with delta null.
 */
export function change(before, after) {
  if (before === undefined && after === undefined) return null;
  if (before === undefined || after === undefined) return { before, after, delta: null, changed: true };
  const a = flat(before);
  const b = flat(after);
  if (!a || !b || a.length !== b.length) {
    return { before, after, delta: null, changed: JSON.stringify(before) !== JSON.stringify(after) };
  }
  let delta = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(b[i] - a[i]) > Math.abs(delta)) delta = b[i] - a[i];
  return { before, after, delta, changed: delta !== 0 };
}

/** The output's node id of `trace`: its `output` (a POST /api/trace body's, or the done
 * event's), else the default output (graphwalk.js sinkOf). */
export function outputNode(trace) {
  return trace.output?.node ?? trace.events.at(-1)?.output?.node ?? sinkOf(trace.graph);
}

/**
 * The diff of run `after` against run `before` (both traces): {rows: [{id (after's), label,
 * value: change, adjoint: change, changed}], output: the output's row, gone}. The rows are
 * after's nodes in order with the output's first: the number a change is made to move leads
 * the table, however many nodes follow. `gone`: the labels of before's nodes that after lacks.
 */
export function diffRuns(before, after) {
  const old = finalNumbers(before);
  const now = finalNumbers(after);
  const byLabel = new Map(before.graph.nodes.map((n) => [n.label, n.id]));
  const rows = after.graph.nodes.map((n) => {
    const was = byLabel.get(n.label);
    const value = change(was === undefined ? undefined : old.values[was], now.values[n.id]);
    const adjoint = change(was === undefined ? undefined : old.adjoints[was], now.adjoints[n.id]);
    return { id: n.id, label: n.label, matched: was !== undefined, value, adjoint, changed: Boolean(value?.changed || adjoint?.changed) };
  });
  const out = outputNode(after);
  const output = rows.find((r) => r.id === out) ?? null;
  const labels = new Set(after.graph.nodes.map((n) => n.label));
  return {
    rows: output ? [output, ...rows.filter((r) => r !== output)] : rows,
    output,
    gone: before.graph.nodes.filter((n) => !labels.has(n.label)).map((n) => n.label),
  };
}

/**
 * The colour scale's position of each changed row, 0.15..1: the relative change of its value
 * (else its adjoint), |Δ| / |before|, as a share of the largest in this diff (a changed
 * shape or a new node counts as the largest). {id: t}.
 */
export function strengths(rows) {
  const rel = {};
  for (const r of rows) {
    if (!r.changed) continue;
    const c = r.value?.changed ? r.value : r.adjoint;
    const size = Math.max(Math.abs(flat(c.before)?.[0] ?? 0), 1e-12);
    rel[r.id] = c.delta === null ? Infinity : Math.abs(c.delta) / size;
  }
  const finite = Object.values(rel).filter(Number.isFinite);
  const top = Math.max(...finite, 0) || 1;
  return Object.fromEntries(Object.entries(rel).map(([id, x]) => [id, 0.15 + 0.85 * Math.min(1, x / top)]));
}

/**
 * The first-order prediction when exactly one scalar leaf changed (by h) and the output is a
 * scalar: {leaf, h, bar (the leaf's gradient in the run before), predicted: h · bar, actual
 * (the output's change)}, else null. `leaves`: the after run's leaf labels.
 */
export function firstOrder(diff, leaves) {
  const moved = diff.rows.filter((r) => leaves.has(r.label) && r.value?.changed);
  const out = diff.output;
  if (moved.length !== 1 || !out?.value) return null;
  const [r] = moved;
  const { delta: h } = r.value;
  const bar = r.adjoint?.before;
  if (typeof h !== "number" || typeof bar !== "number" || typeof out.value.delta !== "number") return null;
  return { leaf: r.label, h, bar, predicted: h * bar, actual: out.value.delta };
}
