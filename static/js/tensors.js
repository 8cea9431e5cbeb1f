// What the detail panel and the graph read from a trace about one node's tensors: where its
// adjoint becomes final, its backward rules with their shapes and summed axes, the first
// non-finite number, and a value as table rows. No DOM: `node --test` covers it.

/**
 * True when a value (docs/trace-format.md) holds a NaN or an infinity: a non-finite scalar is
 * a string, and a tensor's summary min or max is one when any element is.
 */
export function isNonFinite(value) {
  if (typeof value === "string") return true;
  if (value && typeof value === "object") {
    const s = value.summary ?? {};
    return typeof s.min === "string" || typeof s.max === "string";
  }
  return false;
}
/** The step (events applied) after which `event` is on screen: its index + 1. */
const stepOf = (index) => index + 1;

/**
 * The first value or adjoint that is not finite, as the done event names it
 * (`first_non_finite`: {node, phase, why}), with the step at which it appears; null when
 * every number is finite (or an older server did not say).
 */
export function nonFiniteOf(trace) {
  const first = trace.first_non_finite ?? trace.events.at(-1)?.first_non_finite;
  if (!first) return null;
  // an underflow (kind "underflow") names its event's seq: its number is finite
  const i = first.seq !== undefined ? trace.events.findIndex((ev) => ev.seq === first.seq)
    : trace.events.findIndex((ev) => (first.phase === "forward"
    ? ev.kind === "evaluate" && ev.node === first.node
    : ev.kind === "accumulate" && ev.input === first.node && isNonFinite(ev.adjoint_after)));
  return { ...first, step: i < 0 ? trace.events.length : stepOf(i) };
}

/** What the marker names: "first non-finite value", "first underflowed gradient", ... */
export function badNumberText(bad) {
  const what = bad.phase === "forward" ? "value" : "gradient";
  return bad.kind === "underflow" ? `first underflowed ${what} (not exact)` : `first non-finite ${what}`;
}

/**
 * The step after which node `id`'s adjoint is final (its last contribution, or the seed of
 * the output), or null when it never gets one.
 */
export function adjointFinalStep(events, id) {
  // the last one: searched from the end (150,000 events forward cost a click 50 ms)
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i];
    if ((ev.kind === "accumulate" && ev.input === id) || (ev.kind === "seed" && ev.node === id)) return stepOf(i);
  }
  return null;
}

/**
 * Node `id`'s backward rules, one per input it sends a gradient to, in the order the pass
 * runs them: {step, input, arg, partial, narration, unbroadcast: {axes, from_shape,
 * to_shape} | null}.
 */
export function backwardRules(events, id) {
  const rules = [];
  let pending = null; // an unbroadcast event comes just before its accumulate event
  events.forEach((ev, i) => {
    if (ev.node !== id) return;
    if (ev.kind === "unbroadcast") pending = ev;
    if (ev.kind !== "accumulate") return;
    const ub = pending && pending.input === ev.input && pending.arg === ev.arg ? pending : null;
    pending = null;
    rules.push({
      step: stepOf(i), input: ev.input, arg: ev.arg, partial: ev.partial, narration: ev.narration,
      unbroadcast: ub && { axes: ub.axes, from_shape: ub.from_shape, to_shape: ub.to_shape },
    });
  });
  return rules;
}

/**
 * A value as table rows for the detail panel: {rows: [[x, ...]], rowHeads, colHeads,
 * shown, total}, rows of the last axis (a rank-3 tensor's row heads are "0,1"); at most
 * `maxCells` numbers (shown < total says some were left out). null when the value carries
 * no data (a summary).
 */
export function tableOf(value, maxCells = 4096) {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return { rows: [[value]], rowHeads: [""], colHeads: [""], shown: 1, total: 1 };
  if (value.data == null) return null;
  const shape = value.shape;
  const total = shape.reduce((n, d) => n * d, 1);
  const cols = shape.length ? shape.at(-1) : 1;
  const rows = [];
  const rowHeads = [];
  let shown = 0;
  const walk = (data, index) => {
    if (shown >= maxCells) return;
    if (index.length === shape.length - 1) {
      const row = data.slice(0, Math.max(0, Math.min(cols, maxCells - shown)));
      rows.push(row);
      rowHeads.push(index.join(","));
      shown += row.length;
      return;
    }
    data.forEach((x, k) => walk(x, [...index, k]));
  };
  walk(value.data, []);
  return { rows, rowHeads, colHeads: Array.from({ length: cols }, (_, j) => String(j)), shown, total };
}
