// Forward mode and the gradient check on the page (issue 9, sections 1 and 3): what the
// requests carry and how their answers read. No DOM, so `node --test` covers it; the panel
// is render/modes.js.

import { randomLcg, randomNormal } from "d3";
import { boxLines, counted, formatNumber, formatValue, isTensor, tensorRows } from "./format.js";
import { headerLines } from "./header.js";

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
 * How a node's box writes its dual number `value + tangent ε` (docs/trace-format.md, the
 * `tangent` event; seed 000's `a + ȧε`) in the row under its value, as a sum on the board:
 *
 *     VALUE   0.4621
 *           + 0.3932ε
 *
 * Returns {caption, lines, hang}: for a scalar no caption and the line "+ 0.3932ε"
 * ("- 0.5ε" for a negative tangent), to be drawn `hang` (2) characters left of the numbers
 * so that its sign stands in the caption column and its digits under the value's; for a
 * tensor the caption "+ ε·" before its rows (`rows` and `maxElements` as format.js boxLines),
 * or "tangent" before its summary lines (min, max, mean: not a term of a sum). Before the
 * tangent is known (undefined) the row is only captioned "tangent", as reverse mode's "grad".
 */
export function dualRow(tangent, rows = 1, maxElements = 12) {
  if (tangent === undefined) return { caption: "tangent", lines: [], hang: 0 };
  if (!isTensor(tangent)) return { caption: "", lines: [tangentLine(tangent)], hang: 2 };
  const data = tensorRows(tangent, maxElements);
  const lines = boxLines(tangent, rows, maxElements);
  return { caption: data && data.length === rows ? "+ ε·" : "tangent", lines, hang: 0 };
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

/**
 * The gradient check's rows: [{leaf, analytic, numeric, at, abs, rel, ok, eps}] with the numbers
 * as text; analytic (the backward pass's adjoint) and numeric (the central difference) are a
 * scalar leaf's values, and a tensor leaf's at its worst element (`at`, "x[0, 1]": the one
 * whose errors the row gives; null for a scalar). A tensor sent summarised shows its summary.
 * Every element is listed under the row (gradcheckElements).
 */
export function gradcheckRows(gradcheck) {
  return Object.entries(gradcheck ?? {}).map(([leaf, row]) => {
    const worst = gradcheckElements(leaf, row, 1)?.[0];
    const shown = (x, k) => (worst ? formatNumber(worst[k]) : x === undefined ? "" : formatValue(x));
    return {
      leaf,
      analytic: shown(row.analytic, "analytic"),
      numeric: shown(row.numeric, "numeric"),
      at: worst?.name ?? null,
      abs: formatError(row.max_abs_error),
      rel: formatError(row.max_rel_error),
      ok: Boolean(row.ok),
      eps: row.eps,
    };
  });
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

/**
 * The forward walk's direction as the Done narration names it: "∂/∂W[1, 1]" (one element of
 * a tensor leaf, or a scalar leaf "∂/∂a"), "a random direction in W (seed 3)"; null outside
 * forward mode or before the leaves are known (then the API's `passes.direction` is used).
 */
export function directionText(state, leaves) {
  if (state.mode !== "forward") return null;
  const leaf = state.tangent ? leaves.find((l) => l.name === state.tangent) : leaves[0];
  if (!leaf) return null;
  if (!leaf.shape.length) return `∂/∂${leaf.name}`;
  if (state.tangent_direction === "random") return `a random direction in ${leaf.name} (seed ${state.tangent_seed})`;
  const k = state.tangent_element >= 0 && state.tangent_element < leaf.size ? state.tangent_element : 0;
  return `∂/∂${elementName(leaf.name, leaf.shape, k)}`;
}

/** A Value's numbers as a flat list (a scalar: [x]; a tensor without `data`: null). */
function flatData(value) {
  if (typeof value === "number") return [value];
  if (!value || !Array.isArray(value.data)) return null;
  return value.data.flat(Infinity);
}

/**
 * A gradient check row's elements (issue 9, section 3: "each element, for tensors"), from the
 * API's `numeric` and `analytic` Values (engine/trace/gradcheck.py): the `limit` worst by
 * absolute error, [{index: [i, j], name: "W[1, 2]", analytic, numeric, abs_error, rel_error,
 * ok}], ok as the engine's test |a − n| ≤ atol + rtol·|n| (rel_error = |a − n| / |n|, Infinity
 * at n = 0 with a ≠ 0, 0 when both are 0). An API `elements` list is used as it is when given.
 * Null for a scalar leaf or when the numbers are not in the answer (a tensor sent summarised).
 */
export function gradcheckElements(leaf, row, limit = 20) {
  const shape = row?.analytic?.shape ?? row?.numeric?.shape;
  if (!shape?.length) return null;
  if (Array.isArray(row.elements)) return row.elements.slice(0, limit).map((e) => ({ ...e, name: `${leaf}[${e.index.join(", ")}]` }));
  const a = flatData(row.analytic);
  const n = flatData(row.numeric);
  if (!a || !n || a.length !== n.length) return null;
  const atol = row.atol ?? 1e-5;
  const rtol = row.rtol ?? 1e-3;
  return a.map((x, k) => {
    const absError = Math.abs(x - n[k]);
    const relError = absError === 0 ? 0 : n[k] === 0 ? Infinity : absError / Math.abs(n[k]);
    return {
      index: multiIndex(k, shape), name: elementName(leaf, shape, k), analytic: x, numeric: n[k],
      abs_error: absError, rel_error: relError, ok: absError <= atol + rtol * Math.abs(n[k]),
    };
  }).sort((p, q) => q.abs_error - p.abs_error).slice(0, limit);
}

/** The check's verdict line: which leaves disagree (and how many elements), or that all agree. */
export function gradcheckVerdict(gradcheck, h) {
  const rows = Object.entries(gradcheck ?? {});
  const bad = rows.filter(([, r]) => !r.ok).map(([leaf, r]) => (r.kink ? `${leaf} (at a kink)` : leaf));
  const head = `Central differences with h = ${h}: `;
  if (!bad.length) return `${head}every leaf agrees (|a − n| ≤ 1e-5 + 1e-3·|n|).`;
  const disagree = rows.length === 1 ? "disagrees" : "disagree"; // "1 of 2 leaves disagree", "1 of 1 leaf disagrees"
  return `${head}${bad.length} of ${counted(rows.length, "leaf", "leaves")} ${disagree} with the backward pass: ${bad.join(", ")}.`;
}

/**
 * The Jacobian the "all forward passes" answer built, as a table: {rows: [{label, cells}],
 * columns: [labels], transposed, more: {rows, columns} (left out), caption}. Rows are the
 * output's elements (y[0], ...), columns the inputs' elements in leaf order (a, W[0, 1], ...);
 * a Jacobian wider than tall and wider than `most.columns` is shown transposed (one line per
 * input), and at most `most.rows` lines and `most.columns` columns are shown. The caption names
 * every input leaf: "Jacobian ∂y/∂(a, b), 4×2".
 */
export function jacobianTable(jacobian, leaves, output, most = { rows: 12, columns: 6 }) {
  const [m, n] = jacobian.shape;
  const inputs = leaves.flatMap((l) => Array.from({ length: l.size }, (_, k) => elementName(l.name, l.shape, k)));
  const outShape = m > 1 ? [m] : [];
  const outputs = Array.from({ length: m }, (_, i) => elementName(output ?? "y", outShape, i));
  const inputLabels = inputs.length === n ? inputs : Array.from({ length: n }, (_, j) => `x${j}`);
  const transposed = n > m && n > most.columns;
  const rowLabels = transposed ? inputLabels : outputs;
  const colLabels = transposed ? outputs : inputLabels;
  const at = (i, j) => (transposed ? jacobian.data[j][i] : jacobian.data[i][j]);
  const rows = rowLabels.slice(0, most.rows).map((label, i) => ({
    label, cells: colLabels.slice(0, most.columns).map((_, j) => formatNumber(at(i, j))),
  }));
  const more = { rows: Math.max(0, rowLabels.length - most.rows), columns: Math.max(0, colLabels.length - most.columns) };
  // every input leaf by name: ∂y/∂a for one, ∂y/∂(a, b) for more (the columns' leaves)
  const named = inputs.length === n ? leaves.map((l) => l.name) : ["x"];
  const wrt = named.length === 1 ? named[0] : `(${named.join(", ")})`;
  const caption = `Jacobian ∂${output ?? "y"}/∂${wrt}, ${m}×${n}`
    + (transposed ? " (transposed: a line per input)" : "") + (more.rows || more.columns ? ", first entries" : "");
  return { rows, columns: colLabels.slice(0, most.columns), transposed, more, caption };
}

/**
 * The `# hvp:` line the mode menu's "H v" entry adds to a program without one (issue 14: the
 * entry was there, disabled, and only its tooltip said why): v is 1 on the first scalar leaf,
 * else on the first element of the first leaf (engine/trace/hvp.py's default vector), so a
 * tensor's line stays one row of a one-hot list. null when the program has no leaf.
 */
export function hvpHeader(leaves) {
  const leaf = leaves.find((l) => !l.shape.length) ?? leaves[0];
  return leaf ? `# hvp: ${JSON.stringify({ [leaf.name]: oneHot(leaf.shape) })}` : null;
}

/** Whether `program` asks for hvp mode: a `# hvp:` line before its first statement. */
export function hvpLine(program) {
  for (const line of headerLines(program)) {
    const t = line.trim();
    if (/^#\s*hvp\s*:/.test(t)) return true;
    if (t && !t.startsWith("#")) return false;
  }
  return false;
}
