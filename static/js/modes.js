// Forward mode and the gradient check on the page (issue 9, sections 1 and 3): what the
// requests carry and how their answers read. No DOM, so `node --test` covers it; the panel
// is render/modes.js.

import { formatNumber, isTensor } from "./format.js";

/** The leaves of a trace's graph: [{name, shape, size}] in creation order. */
export function leavesOf(graph) {
  return (graph?.nodes ?? [])
    .filter((n) => n.role === "leaf" && n.name)
    .map((n) => ({ name: n.name, shape: n.shape ?? [], size: (n.shape ?? []).reduce((a, b) => a * b, 1) }));
}

/** A nested list of `shape` with 1 at the first element and 0 elsewhere (1 for a scalar). */
export function oneHot(shape) {
  if (!shape.length) return 1;
  const build = (dims, first) => {
    if (!dims.length) return first ? 1 : 0;
    return Array.from({ length: dims[0] }, (_, i) => build(dims.slice(1), first && i === 0));
  };
  return build(shape, true);
}

/**
 * The request fields of a mode: {} for reverse mode (the request stays as it always was);
 * {mode: "forward", tangents: {leaf: one-hot}} for forward mode along `leaf` (a leafsOf
 * entry; none: the engine's default, the first leaf's first element).
 */
export function modeFields(mode, leaf) {
  if (mode !== "forward") return {};
  return leaf ? { mode: "forward", tangents: { [leaf.name]: oneHot(leaf.shape) } } : { mode: "forward" };
}

/** A scalar dual number as the boxes show it: "0.4621 + 0.3932ε", "-0.5 - 0.5ε". */
export function dualText(value, tangent) {
  const t = formatNumber(tangent);
  const v = formatNumber(value);
  return t.startsWith("-") ? `${v} - ${t.slice(1)}ε` : `${v} + ${t}ε`;
}

/** The tangent's line in a node box: "+ 0.3932ε" for a scalar, null for a tensor. */
export function tangentLine(tangent) {
  if (tangent === undefined || isTensor(tangent)) return null;
  const t = formatNumber(tangent);
  return t.startsWith("-") ? `- ${t.slice(1)}ε` : `+ ${t}ε`;
}

/**
 * What the "all forward passes" answer says: {passes, reverse, agree, text, widths}
 * (widths: the two bars' lengths in percent, forward passes against reverse passes).
 */
export function allForwardSummary(body) {
  const all = body.all_forward;
  if (all?.skipped) throw new Error(all.skipped); // over the passes' limits: say why
  const jac = all.jacobian;
  const reverse = jac.reverse_passes;
  const most = Math.max(all.passes, reverse, 1);
  const diff = formatNumber(all.max_abs_difference_from_reverse);
  const agree = Boolean(all.agree);
  const verdict = agree ? `they agree with the reverse gradient (largest difference ${diff})`
    : `they differ from the reverse gradient by up to ${diff}`;
  return {
    passes: all.passes,
    reverse,
    agree,
    text: `${all.passes} forward passes (one per scalar input) built the ${jac.shape[0]}×${jac.shape[1]} `
      + `Jacobian; reverse mode needs ${reverse} pass${reverse === 1 ? "" : "es"}: ${verdict}.`,
    widths: { forward: (100 * all.passes) / most, reverse: (100 * reverse) / most },
  };
}

/** The gradient check's rows: [{leaf, abs, rel, ok, eps}] with the errors as text. */
export function gradcheckRows(gradcheck) {
  return Object.entries(gradcheck ?? {}).map(([leaf, row]) => ({
    leaf,
    abs: formatError(row.max_abs_error),
    rel: formatError(row.max_rel_error),
    ok: Boolean(row.ok),
    eps: row.eps,
  }));
}

/** An error figure: 2.9e-11 when tiny, else as every number on the page (1.5729), 0 or NaN. */
export function formatError(x) {
  if (typeof x !== "number") return String(x);
  if (x === 0 || Math.abs(x) >= 1e-3) return formatNumber(x);
  return x.toExponential(1).replace(/\.0e/, "e");
}

/** The step the check's box holds as a request's eps, or null when it is not one (0 < h <= 1). */
export function parseEps(text) {
  const h = Number(String(text).trim());
  return Number.isFinite(h) && h > 0 && h <= 1 ? h : null;
}
