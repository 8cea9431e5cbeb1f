// Forward mode and the gradient check on the page (issue 9, sections 1 and 3): what the
// requests carry and how their answers read. No DOM, so `node --test` covers it; the panel
// is render/modes.js.

import { randomLcg, randomNormal } from "d3";
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

/** The multi-index of flat (row-major, C order) index `k` in `shape`: [1, 2] for 5 in (2, 3). */
export function multiIndex(k, shape) {
  const out = [];
  for (let i = shape.length - 1; i >= 0; i -= 1) {
    out.unshift(k % shape[i]);
    k = Math.floor(k / shape[i]);
  }
  return out;
}

/** An element's name as the page shows it: "W[1, 2]" (the leaf's own name for a scalar). */
export function elementName(name, shape, k) {
  return shape.length ? `${name}[${multiIndex(k, shape).join(", ")}]` : name;
}

/** The flat list `data` as a nested list of `shape` (row-major); a scalar for shape []. */
export function nest(data, shape) {
  if (!shape.length) return data[0];
  const step = data.length / shape[0];
  return Array.from({ length: shape[0] }, (_, i) => nest(data.slice(i * step, (i + 1) * step), shape.slice(1)));
}

/** A nested list of `shape` with 1 at flat index `k` and 0 elsewhere (1 for a scalar). */
export function unitTangent(shape, k) {
  const size = shape.reduce((a, b) => a * b, 1);
  return nest(Array.from({ length: size }, (_, i) => (i === k ? 1 : 0)), shape);
}

/**
 * `size` standard-normal numbers from seed `seed` (a non-negative integer), the same on every
 * run and machine: d3-random's randomNormal (Marsaglia's polar method) drawing from its
 * randomLcg, a 32-bit linear congruential generator (d3 is already the page's library).
 */
export function normalVector(size, seed) {
  const draw = randomNormal.source(randomLcg(seed))(0, 1);
  return Array.from({ length: size }, () => draw());
}

/**
 * The tangent a forward walk sends for `leaf` ({name, shape, size}) and a direction
 * ({direction: "element" | "random", element: flat index, seed}): a scalar leaf's is 1;
 * a tensor's is the unit vector of its element (index 0 when out of range), or the seeded
 * normal vector of its shape.
 */
export function tangentFor(leaf, { direction = "element", element = 0, seed = 1 } = {}) {
  if (!leaf.shape.length) return 1;
  if (direction === "random") return nest(normalVector(leaf.size, seed), leaf.shape);
  return unitTangent(leaf.shape, element >= 0 && element < leaf.size ? element : 0);
}

/**
 * A forward walk's request fields for the page's state (state.js: `mode`, `tangent` the
 * leaf's name, `tangent_direction`, `tangent_element`, `tangent_seed`) and the program's
 * `leaves` (leavesOf; [] before a graph of it came): {} in reverse mode; {mode: "forward"}
 * for the engine's default (the first leaf's first element, also when the leaves are not
 * known yet or the named leaf is not one of them); else {mode, tangents: {leaf: tangent}}
 * (`tangent` "" is the first leaf, in the direction chosen).
 */
export function forwardFields(state, leaves) {
  if (state.mode !== "forward") return {};
  // "" is the first leaf; a name the program does not have is the engine's default
  const leaf = state.tangent ? leaves.find((l) => l.name === state.tangent) : leaves[0];
  if (!leaf) return { mode: "forward" };
  const direction = { direction: state.tangent_direction, element: state.tangent_element, seed: state.tangent_seed };
  const tangent = tangentFor(leaf, direction);
  const first = leaf === leaves[0] && JSON.stringify(tangent) === JSON.stringify(oneHot(leaf.shape));
  return first ? { mode: "forward" } : { mode: "forward", tangents: { [leaf.name]: tangent } };
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
