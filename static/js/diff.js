// Edit and diff (issue 16, section 2), without the DOM: node by node, which values and
// adjoints changed between two runs and by how much. `node --test` covers it
// (tests/js/diff.test.mjs).
//
// A run's numbers are its final ones: each node's value (its evaluate event) and its adjoint
// after the whole backward pass (the last seed / accumulate into it; a leaf's from the done
// event's grads). Nodes are matched by structure (matchNodes: the same op of matched inputs),
// so an inserted line or a renamed variable still lines up the unchanged nodes (node ids
// and labels shift). The teaching case: nudge a by h and the output moves by about h · ā
// (first order: ΔL = ā h + O(h²)).

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

/**
 * Each node's numbers in walk order: {value: {id: [event index, v]}, adjoint: {id: [[event
 * index, adjoint after it], ...]}} (the seed and every accumulate into the node).
 */
export function histories(trace) {
  const value = {};
  const adjoint = {};
  trace.events.forEach((ev, i) => {
    if (ev.kind === "evaluate" || ev.kind === "tangent") value[ev.node] = [i, ev.value];
    else if (ev.kind === "seed") (adjoint[ev.node] ??= []).push([i, ev.adjoint]);
    else if (ev.kind === "accumulate") (adjoint[ev.input] ??= []).push([i, ev.adjoint_after]);
  });
  return { value, adjoint };
}

const memo = new WeakMap(); // trace -> histories(trace): a step of the walk re-diffs at once
const historiesOf = (t) => memo.get(t) ?? memo.set(t, histories(t)).get(t);

/** How many of `list` ([[event index, x], ...], in walk order) come before event `step`. */
function countBefore(list, step) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid][0] < step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Both runs' numbers of node `id` (after's; `was`: its match in before, or undefined) at
 * step `step` of after's walk (events[:step] shown), from their histories `a` and `b`:
 * {value: [before's, after's], adjoint: [before's, after's]}, undefined where a run has none.
 * After's value once evaluated and adjoint as accumulated so far; before's at the same point
 * of its own walk: its value when after knows its own, its adjoint after as many
 * contributions as after's node has received (all of them when it received fewer in all).
 */
function numbersAt(a, b, id, was, step) {
  const v = a.value[id];
  const known = Boolean(v && v[0] < step);
  const theirs = was === undefined ? [] : b.adjoint[was] ?? [];
  const mine = a.adjoint[id] ?? [];
  const got = countBefore(mine, step);
  return {
    value: [known && was !== undefined ? b.value[was]?.[1] : undefined, known ? v[1] : undefined],
    adjoint: [got && theirs.length ? theirs[Math.min(got, theirs.length) - 1][1] : undefined, got ? mine[got - 1][1] : undefined],
  };
}

/** The node each event's numbers belong to (an evaluate's or a seed's node, an accumulate's
 * input), or undefined (unbroadcast, done). */
const numbersOf = (ev) => (ev.kind === "accumulate" ? ev.input : ev.kind === "done" || ev.kind === "unbroadcast" ? undefined : ev.node);

/** The numbers of a scalar or an inlined tensor, flattened; null for a summarized tensor. */
function flat(x) {
  if (typeof x === "number") return [x];
  if (isTensor(x)) return x.data === null ? null : [x.data].flat(Infinity);
  return null;
}

/**
 * One number's change: {before, after, delta, measure, changed}; null when the node has none
 * in either run. `delta` is after - before for a number; for a tensor its `measure` says
 * which: "max", the largest elementwise change (signed), or "mean", the change of the mean,
 * for a tensor that travels as a summary (its elements are not in the trace). A tensor whose
 * shape changed is `changed` with delta null; a number only the run after has is `changed`
 * and `added` (it reads "new", not "changed").
 */
export function change(before, after) {
  if (before === undefined && after === undefined) return null;
  if (before === undefined) return { before, after, delta: null, changed: true, added: true };
  if (after === undefined) return { before, after, delta: null, changed: true };
  const a = flat(before);
  const b = flat(after);
  if (!a || !b || a.length !== b.length) {
    const changed = JSON.stringify(before) !== JSON.stringify(after);
    const sameShape = isTensor(before) && isTensor(after) && before.shape.join() === after.shape.join();
    const means = sameShape && [before, after].map((t) => t.summary?.mean);
    const delta = means && means.every(Number.isFinite) ? means[1] - means[0] : null;
    return { before, after, delta, ...(delta === null ? {} : { measure: "mean" }), changed };
  }
  let delta = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(b[i] - a[i]) > Math.abs(delta)) delta = b[i] - a[i];
  return { before, after, delta, ...(isTensor(after) ? { measure: "max" } : {}), changed: delta !== 0 };
}

/** The output's node id of `trace`: its `output` (a POST /api/trace body's, or the done
 * event's), else the default output (graphwalk.js sinkOf). */
export function outputNode(trace) {
  return trace.output?.node ?? trace.events.at(-1)?.output?.node ?? sinkOf(trace.graph);
}

/** True when step `step` of a walk of `total` events is neither its start nor its end. */
export function midWalk(step, total) {
  return step !== null && step > 0 && step < total;
}

// ---------------------------------------------------------------- matching

// A leaf's params say how its numbers were drawn (`init: randn(2, 2, seed=1)`): a new seed is
// the same leaf with new numbers, not a new leaf and a gone one.
const kindOf = (n) => (n.inputs?.length ? `${n.op}|${n.inputs.length}|${JSON.stringify(n.params ?? {})}` : `${n.op}|0`);

/** A Map key -> nodes (in graph order) of `nodes`, each under every key `keys(n)` gives. */
function index(nodes, keys) {
  const map = new Map();
  for (const n of nodes) {
    for (const k of keys(n)) {
      if (!map.has(k)) map.set(k, []);
      map.get(k).push(n);
    }
  }
  return map;
}

/**
 * Which node of `before` (a graph: {nodes}) each node of `after` is: Map after id -> before
 * id. Walked in topological order (the graph's node order), first by rule 1 alone over the
 * whole graph, then again for the nodes left: each takes the first unclaimed node of
 * `before` of the same op, arity and params found by, in turn:
 *   1. structure: a leaf or constant of the same name; an op node whose inputs are,
 *      position by position, the matches of its own inputs (so `e = a * b` renamed
 *      `p = a * b` is still e);
 *   2. part of the structure: where some inputs are new (a line inserted above), those
 *      inputs it has matched agree position by position;
 *   3. the same label (the old rule);
 *   4. a leaf left over: the next unclaimed leaf of the same role and shape (a renamed
 *      input, `a = 1.0` -> `x = 1.0`).
 * A node of another op is never a match: it is new, and the one it replaced is gone. Each
 * rule looks its candidates up in an index, so a graph of thousands of nodes matches in
 * milliseconds.
 */
export function matchNodes(before, after) {
  const claimed = new Set();
  const match = new Map();
  const nameOf = (n) => n.name ?? n.label;
  const exact = index(before.nodes, (m) => [`${kindOf(m)}|${m.inputs?.length ? m.inputs.join(",") : `name:${nameOf(m)}`}`]);
  const byInput = index(before.nodes, (m) => (m.inputs ?? []).map((id, k) => `${kindOf(m)}|${k}|${id}`));
  const byLabel = index(before.nodes, (m) => [`${kindOf(m)}|${m.label}`]);
  const leaves = index(before.nodes.filter((m) => !m.inputs?.length), (m) => [`${kindOf(m)}|${m.role}|${JSON.stringify(m.shape)}`]);
  const next = new Map(); // list -> index of its first node not yet claimed
  const take = (candidates = [], fits = () => true) => {
    let i = next.get(candidates) ?? 0;
    while (i < candidates.length && claimed.has(candidates[i].id)) i++;
    next.set(candidates, i); // the claimed prefix is never looked at again (1,000 constants 0.5)
    for (; i < candidates.length; i++) {
      const m = candidates[i];
      if (claimed.has(m.id) || !fits(m)) continue;
      claimed.add(m.id);
      return m.id;
    }
    return undefined;
  };
  const exactly = (n, kind, inputs) => (!inputs.length ? take(exact.get(`${kind}|name:${nameOf(n)}`))
    : take(exact.get(`${kind}|${inputs.join(",")}`)));
  // Rule 1 first over the whole graph: a node inserted above (`k = t * 3.0` before
  // `L = t * c`) must not take, by part of its structure, the node that matches another
  // exactly (L's own), which then read as new.
  for (const n of after.nodes) {
    const found = exactly(n, kindOf(n), (n.inputs ?? []).map((i) => match.get(i)));
    if (found !== undefined) match.set(n.id, found);
  }
  const leftover = [];
  for (const n of after.nodes) {
    if (match.has(n.id)) continue;
    const kind = kindOf(n);
    const inputs = (n.inputs ?? []).map((i) => match.get(i));
    const k = inputs.findIndex((id) => id !== undefined);
    const id = exactly(n, kind, inputs) // its inputs matched since, by rules 2-3
      ?? (k < 0 ? undefined : take(byInput.get(`${kind}|${k}|${inputs[k]}`),
        (m) => inputs.every((x, j) => x === undefined || m.inputs[j] === x)));
    const found = id ?? take(byLabel.get(`${kind}|${n.label}`));
    if (found !== undefined) match.set(n.id, found);
    else if (!inputs.length) leftover.push(n);
  }
  for (const n of leftover) { // after every named leaf has had its own
    const id = take(leaves.get(`${kindOf(n)}|${n.role}|${JSON.stringify(n.shape)}`));
    if (id !== undefined) match.set(n.id, id);
  }
  return match;
}

const matched = new WeakMap(); // after's graph -> {before's graph, match, ...}: a step re-diffs at once

/** The pairing of after's graph with before's (matchNodes), and what each diff of them shares. */
function pairing(before, after) {
  let pair = matched.get(after.graph);
  if (pair?.before !== before.graph) {
    const match = matchNodes(before.graph, after.graph);
    const kept = new Set(match.values());
    pair = {
      before: before.graph, match, oldById: new Map(before.graph.nodes.map((n) => [n.id, n])),
      gone: before.graph.nodes.filter((n) => !kept.has(n.id)).map((n) => n.label),
    };
    matched.set(after.graph, pair);
  }
  const out = outputNode(after); // the rows' order: the output's first (a request may name another)
  if (pair.out !== out) {
    const order = [...after.graph.nodes.filter((n) => n.id === out), ...after.graph.nodes.filter((n) => n.id !== out)];
    Object.assign(pair, { out, order, at: new Map(order.map((n, k) => [n.id, k])), last: null, output: order[0]?.id === out ? out : null });
  }
  return pair;
}

/** The row of after's node `n` given both runs' numbers of it (numbersAt's shape). */
function rowOf(pair, n, { value: [v0, v1], adjoint: [g0, g1] }) {
  const was = pair.match.get(n.id);
  const value = change(v0, v1);
  const adjoint = change(g0, g1);
  const label = was === undefined ? undefined : pair.oldById.get(was).label;
  return {
    id: n.id, label: n.label, ...(label !== undefined && label !== n.label ? { was: label } : {}),
    matched: was !== undefined, value, adjoint,
    changed: was !== undefined && Boolean(value?.changed || adjoint?.changed), added: was === undefined,
  };
}

/**
 * The diff of run `after` against run `before` (both traces): {rows: [{id (after's), label,
 * was (before's label when it differs: a renamed node), matched, value: change, adjoint:
 * change, changed, added}], output: the output's row, gone}. Nodes are paired by
 * matchNodes; a node of after's that matches none (an inserted line's) is `added`, never
 * `changed`: it has nothing to have changed from (the review counted "2 of 9 changed"). The
 * rows are after's nodes in order with the output's first: the number a change is made to
 * move leads the table, however many nodes follow. `gone`: the labels of before's nodes
 * that match none of after's. `step`: the numbers at that step of after's walk (numbersAt)
 * when it is mid-walk, else (null, step 0 where nothing is known yet, or the end) both
 * runs' final numbers.
 *
 * A step of the walk re-diffs only the nodes the events between it and the last step diffed
 * (of these two runs) reached: the other rows are the same objects as before, so the page
 * redraws only those (a 1,200-node walk compared step by step rebuilt 1,200 rows a step).
 */
export function diffRuns(before, after, { step = null } = {}) {
  const pair = pairing(before, after);
  const mid = midWalk(step, after.events.length);
  const last = pair.last?.traces[0] === before && pair.last.traces[1] === after ? pair.last : null;
  let rows;
  if (!mid) {
    if (last?.final) rows = last.final;
    else {
      const [old, now] = [finalNumbers(before), finalNumbers(after)];
      rows = pair.order.map((n) => {
        const was = pair.match.get(n.id);
        const theirs = (x) => (was === undefined ? undefined : x[was]);
        return rowOf(pair, n, { value: [theirs(old.values), now.values[n.id]], adjoint: [theirs(old.adjoints), now.adjoints[n.id]] });
      });
    }
  } else {
    const [a, b] = [historiesOf(after), historiesOf(before)];
    const row = (n) => rowOf(pair, n, numbersAt(a, b, n.id, pair.match.get(n.id), step));
    if (last?.mid === undefined) rows = pair.order.map(row);
    else {
      rows = last.rows.slice();
      const [lo, hi] = last.mid < step ? [last.mid, step] : [step, last.mid];
      for (let i = lo; i < hi; i++) {
        const k = pair.at.get(numbersOf(after.events[i]));
        if (k !== undefined) rows[k] = row(pair.order[k]);
      }
    }
  }
  const kept = last ?? {}; // the mid-walk rows and the final ones, of these two runs
  pair.last = { traces: [before, after], mid: mid ? step : kept.mid, rows: mid ? rows : kept.rows, final: mid ? kept.final : rows };
  return { rows, output: pair.output === null ? null : rows[0], gone: pair.gone };
}

/**
 * `diff` with the numbers a quiz keeps hidden taken out: each row's value or adjoint change
 * for which `secret(id, what)` (quiz.js hiddenAt: "value" | "adjoint") is true reads
 * {hidden: true, changed, added} (no before, after nor delta: both runs' numbers and their
 * difference are the answer, give or take the nudge), and the output row is the veiled one.
 * While an adjoint is asked, so is every computed node's value change when `leafIds` (a Set
 * of the leaves' ids) is given: a change divided by the nudge is a finite difference of the
 * answer (L: 0.9242 → 0.925 over Δa = 0.001 gave ā, a review); the leaves' own changes show.
 * `secret` null gives `diff` back.
 */
export function veiled(diff, secret, leafIds = null) {
  if (!diff || !secret) return diff;
  const veil = (c) => c && { hidden: true, changed: c.changed, ...(c.added ? { added: true } : {}) };
  const asksAdjoints = leafIds !== null && diff.rows.some((r) => secret(r.id, "adjoint"));
  const rows = diff.rows.map((r) => {
    const [value, adjoint] = [secret(r.id, "value") || (asksAdjoints && !leafIds.has(r.id)), secret(r.id, "adjoint")];
    return value || adjoint ? { ...r, ...(value ? { value: veil(r.value) } : {}), ...(adjoint ? { adjoint: veil(r.adjoint) } : {}) } : r;
  });
  const output = diff.output && rows[diff.rows.indexOf(diff.output)];
  return { ...diff, rows, output };
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
    rel[r.id] = c.hidden ? 0 : c.delta === null ? Infinity : Math.abs(c.delta) / size; // a quiz's: the lightest
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
