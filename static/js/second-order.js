// Second order on the page (issue 9; docs/trace-format.md, "Second order"): what the panel
// (render/hessian.js) shows of a trace's `hvp`, `hessian` and `eigen` results. No DOM, so
// `node --test` covers it.

import { heatCells } from "./heat.js";
import { formatNumber, formatValue } from "./format.js";

/** Whether a trace (its body, or a walk's trace once done) has anything for the panel. */
export function hasSecondOrder(trace) {
  return Boolean(trace && (trace.hvp || trace.hessian || trace.eigen));
}

/**
 * H v per leaf: [{leaf, value, reverse, forward, agree}], `value` the reverse-over-reverse
 * Value, `reverse` and `forward` as the page prints them (forward "" when absent), `agree`
 * when both print the same.
 */
export function hvpRows(trace) {
  const forward = trace.hvp_forward_over_reverse ?? {};
  return Object.entries(trace.hvp ?? {}).map(([leaf, value]) => {
    const reverse = formatValue(value);
    const other = leaf in forward ? formatValue(forward[leaf]) : "";
    return { leaf, value, reverse, forward: other, agree: reverse === other };
  });
}

/**
 * The Hessian's heat map: {n, cells: [{i, j, v}], maxAbs, cell} for a map `side` px wide
 * (cell: one cell's side), cells coloured by heat.js's scale like the nodes' heat maps.
 */
export function hessianMap(hessian, side) {
  const n = hessian.leaves.length;
  const { cells, maxAbs } = heatCells({ shape: [n, n], data: hessian.matrix, summary: null });
  return { n, cells, maxAbs, cell: n ? side / n : side };
}

/** The title of one cell: "∂²L/∂a∂b = 0.8460". */
export function cellTitle(hessian, c) {
  return `∂²L/∂${hessian.leaves[c.i]}∂${hessian.leaves[c.j]} = ${formatNumber(c.v)}`;
}

/** The line under the eigenvalue's chart. */
export function eigenText(eigen) {
  const steps = eigen.steps === 1 ? "1 step" : `${eigen.steps} steps`;
  return `largest Hessian eigenvalue ≈ ${formatNumber(eigen.value)} after ${steps} of power iteration (v ← Hv / ‖Hv‖)`;
}

/**
 * A cell's number in the enlarged map, at most 5 characters: 2 significant digits ("0.85",
 * "-0.35", "12"), 1 under 0.1 ("-0.08") or as a power of ten ("1e3", "4e-3"); "0" for 0 and
 * the non-finite as "NaN", "∞", "-∞".
 */
export function cellText(v) {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "-∞";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 100 || a < 0.01) return v.toExponential(0).replace("e+", "e");
  return String(Number(v.toPrecision(a < 0.1 ? 1 : 2))); // "-0.08", not "-0.077": 5 characters
}

/** The legend's three ticks: [{at, value, text}] at 0, ½ and 1 of the bar: -maxAbs, 0, +maxAbs. */
export function legendStops(maxAbs) {
  return [
    { at: 0, value: -maxAbs, text: formatNumber(-maxAbs) },
    { at: 0.5, value: 0, text: "0" },
    { at: 1, value: maxAbs, text: formatNumber(maxAbs) },
  ];
}

/**
 * The power-iteration chart's ranges: {steps, lo, hi} (steps counted from 1; lo, hi the
 * smallest and largest finite estimate, widened by 1 when equal so the axis has a span); null
 * with fewer than two finite estimates.
 */
export function eigenDomain(estimates) {
  const finite = estimates.filter((v) => typeof v === "number" && Number.isFinite(v));
  if (finite.length < 2) return null;
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (lo === hi) { lo -= 1; hi += 1; }
  return { steps: estimates.length, lo, hi };
}
