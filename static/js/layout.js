// Layout: positions for every node and edge, computed once per graph by dagre (left to
// right: inputs on the left, the output on the right). Stepping never moves anything, so
// each box is sized here for the largest thing it will ever show: the trace is known when
// the layout runs, so widths come from the numbers themselves. No DOM: sizes come from
// character counts in the fonts the stylesheet sets (monospace numbers).
// This adapter is the one place that knows dagre, so elkjs can replace it for big graphs.

import dagre from "@dagrejs/dagre";
import { clipLabel } from "./clip.js";
import { boxLines, formatShape, sizeOf } from "./format.js";
import { HEAT, heatSize } from "./heat.js";

// Box metrics in SVG user units; css/app.css uses the same font sizes.
export const METRICS = {
  pad: 12,
  header: 34, // label + op tag
  row: 24, // one line of numbers
  gap: 6, // between the value block and the grad block
  labelChar: 14, // 22px bold sans
  tagChar: 10, // 16px sans
  numFont: 18, // px: the numbers, the smallest text that matters on a projector
  numChar: 11, // 18px monospace
  numWidth: 9, // characters reserved for a number at least ("-999.9999")
  cellWidth: 8, // characters of one element in a row of a tensor
  caption: 58, // the "value" / "grad" caption before the numbers
  minWidth: 110,
  maxInlineElements: 12, // more than this and a tensor shows its summary
  // ... or more than this to a row: a bias of 8 printed one line 60 characters wide, so the
  // 2-layer MLP needed scale 0.35 to be seen whole (numbers at 6 px; issue 14)
  maxInlineRow: 4,
  calloutFont: 18, // px, monospace, like the numbers
  calloutPad: 10, // around the callout's text
  calloutRoom: 40, // extra room above the top row, so a callout fits above a top node
  ring: 7, // how far a node's focus ring reaches out of its box (render/graph.js nodeShell)
};

// An edge's shape label: 15px monospace (app.css .edge-shape).
export const EDGE_LABEL = { char: 9, height: 20 };

// The layout's cost is predicted before it starts (predictLayout); past this many predicted
// milliseconds the page does not try, and opens an overview instead. dagre's time grows with
// the nodes and with every rank a long edge crosses (each crossing is a hidden node), and
// its recursion overflows the stack on chains of about 4,000 nodes, which this also stops.
export const LAYOUT_BUDGET_MS = 4000;

// dagre recurses once per rank along a path: a worker's stack (smaller than the page's)
// overflows at about 950 ranks. A deeper graph is not tried; it opens as an overview.
export const MAX_LAYOUT_DEPTH = 800;

// A leaf or constant used by more consumers than this is drawn as a small reference chip
// beside each consumer, as Netron draws weights, instead of one box with long edges to all.
export const CHIP_FANOUT = 4;
// Past this many boxes dagre ranks with "tight-tree" (a feasible tree, not optimised by
// network simplex): 1,000-node chains and fan-ins lay out in 55-80% of the time (0.98 s to
// 0.55 s; the same drawing for them); smaller graphs keep network simplex's shorter edges.
export const FAST_RANKER_ABOVE = 200;
export const CHIP = { char: 9, pad: 7, height: 24, gap: 4, maxChars: 10 };

// How an op is written in the box's tag.
const SYMBOLS = {
  add: "+", sub: "−", mul: "×", div: "÷", pow: "**", neg: "−x", matmul: "@", transpose: "ᵀ",
};

// The backward graph's own rows (engine/ops/masked.py): `pow_vjp_base` is the vjp of `**` for
// its base, `maximum_vjp1` of maximum for its input 1 (counted from 0). Their engine names read
// as jargon on a node; the tag says "vjp ** base", "vjp maximum 2nd".
const VJP_ROW = /^(.+)_vjp(?:_(base|exponent)|(\d))?$/;
const ORDINAL = ["1st", "2nd", "3rd"];
const symbolOf = (op) => {
  const row = VJP_ROW.exec(op);
  if (!row) return SYMBOLS[op] ?? op;
  const which = row[2] ?? (row[3] === undefined ? "" : ORDINAL[Number(row[3])]);
  return `vjp ${SYMBOLS[row[1]] ?? row[1]}${which ? ` ${which}` : ""}`;
};

/** The short tag a node wears: its op symbol or name, its role for leaves and constants. */
export function opTag(node) {
  const base = node.role === "op" ? symbolOf(node.op) : node.role;
  return node.shape && node.shape.length ? `${base} · ${formatShape(node.shape)}` : base;
}

/**
 * True when a value of this shape shows its data (a few numbers: at most maxInlineElements,
 * at most maxInlineRow to a row), false when it shows its summary (min, max, mean) beside
 * its heat map; the detail panel shows every number either way.
 */
export function inlined(shape) {
  return shape.length <= 2 && sizeOf(shape) <= METRICS.maxInlineElements
    && (shape.length === 0 || shape.at(-1) <= METRICS.maxInlineRow);
}

/** Lines of numbers the value block needs: one per matrix row, or min / max / mean. */
export function valueRows(shape) {
  if (!shape || shape.length === 0) return 1;
  if (!inlined(shape)) return 3;
  return shape.length === 2 ? shape[0] : 1;
}

/** Width of the widest numbers line, in characters, before the numbers are known. */
function numberChars(shape) {
  if (!shape || shape.length === 0) return METRICS.numWidth;
  if (!inlined(shape)) return "mean ".length + METRICS.numWidth;
  return shape[shape.length - 1] * (METRICS.cellWidth + 2); // "[a, b, c]"
}

/**
 * The widest numbers line each node will ever show in its box, in characters: node id ->
 * chars, over every value and adjoint the events carry (a box prints them with boxLines).
 */
export function widestLines(graph, events) {
  // A Map: the view of a 100,000-node trace has a few hundred boxes, and each of 150,000
  // events is looked up in it (an object's `in` made this 100 ms).
  const rows = new Map(graph.nodes.map((n) => [n.id, valueRows(n.shape)]));
  const widest = {};
  const see = (id, value) => {
    const r = rows.get(id);
    if (r === undefined || value === undefined) return;
    for (const line of boxLines(value, r, METRICS.maxInlineElements)) {
      widest[id] = Math.max(widest[id] ?? 0, [...line].length);
    }
  };
  for (let i = 0; i < events.length; i++) {
    const ev = events[i];
    if (ev.kind === "evaluate") see(ev.node, ev.value);
    else if (ev.kind === "seed") see(ev.node, ev.adjoint);
    else if (ev.kind === "accumulate") see(ev.input, ev.adjoint_after);
  }
  return widest;
}

/**
 * A box's size for `node`, and the rows it reserves. `chars` is the widest numbers line it
 * will show (widestLines); without it the box is sized from the shape alone. A tensor's
 * value and grad blocks each keep room on the right for a heat map (heat.js), or for a
 * shape badge at rank 3 and more: `heat` is its size, `block` a block's height.
 */
export function boxSize(node, chars) {
  const m = METRICS;
  const rows = valueRows(node.shape);
  const head = [...node.label].length * m.labelChar + opTag(node).length * m.tagChar + 28;
  const scalar = !node.shape || node.shape.length === 0;
  // A scalar keeps the usual width unless a number needs more; a tensor fits its lines.
  const numbers = chars === undefined ? numberChars(node.shape)
    : scalar ? Math.max(m.numWidth, chars) : chars;
  const heat = heatSize(node.shape, rows * m.row);
  const block = Math.max(rows * m.row, heat.height + 2);
  const body = m.caption + numbers * m.numChar + (heat.width ? HEAT.gap + heat.width : 0);
  const hasGrad = node.role !== "const";
  return {
    width: Math.max(m.minWidth, head, body) + 2 * m.pad,
    height: m.header + block * (hasGrad ? 2 : 1) + (hasGrad ? m.gap : 0) + m.pad,
    rows,
    block,
    heat,
  };
}

/** The small label an edge carries: its tensor's shape as Python prints it ("(4,3)", "(2,)"),
 * or null for a scalar. Not yet the narration's words (format.js shapeText, "4×3", "2-vector"):
 * their widths move dagre's ranks, and at 1024x768 / 1280x800 on a projector the framing of a
 * selected node then left titles under the trace bar (tests/e2e/test_detail_pin_page.py). */
export function edgeLabel(shape) {
  return shape && shape.length ? `(${shape.join(",")}${shape.length === 1 ? "," : ""})` : null;
}

/**
 * The leaves and constants drawn as reference chips: node id -> number of uses (the trace's
 * edges out of it), for each one with more than `fanout` drawn edges (CHIP_FANOUT). In a
 * grouped graph (groups.js viewGraph) an edge into a collapsed box stands for its `members`:
 * a weight drawn with 28 chips may be used 1,666 times.
 */
export function referenceNodes(graph, { fanout = CHIP_FANOUT } = {}) {
  const drawn = {};
  const uses = {};
  for (const edge of graph.edges) {
    drawn[edge.source] = (drawn[edge.source] ?? 0) + 1;
    uses[edge.source] = (uses[edge.source] ?? 0) + (edge.members?.length ?? 1);
  }
  const refs = {};
  for (const node of graph.nodes) {
    if ((node.role === "leaf" || node.role === "const") && drawn[node.id] > fanout) refs[node.id] = uses[node.id];
  }
  return refs;
}

/**
 * What laying out `graph` will cost, before trying: {nodes, edges, dummies, depth, ms}. Ranks
 * are placed as late as each node's first consumer allows (as dagre's network simplex
 * tends to place them), an edge crossing r ranks costs r - 1 hidden nodes (`dummies`),
 * and edges from `refs` (referenceNodes: drawn as chips) are not laid out. `ms` is fitted
 * to dagre 3 under Node 22 on this project's programs (chains, fan-ins, shared weights):
 * ms = 1.2 (nodes + dummies) + nodes² / 1000, within a factor of two (docs/performance.md).
 * Edge labels (tensor shapes) double the ranks. `depth` is the number of ranks.
 */
export function predictLayout(graph, { refs = {} } = {}) {
  const outs = Object.fromEntries(graph.nodes.map((n) => [n.id, []]));
  const laid = graph.edges.filter((e) => !(e.source in refs) && e.source in outs && e.target in outs);
  for (const e of laid) outs[e.source].push(e.target);
  const rank = {};
  // Nodes come in creation (topological) order: consumers after their inputs.
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const id = graph.nodes[i].id;
    let r = Infinity;
    for (const c of outs[id]) r = Math.min(r, rank[c] - 1);
    rank[id] = Number.isFinite(r) ? r : 0;
  }
  let dummies = 0;
  for (const e of laid) dummies += Math.max(0, Math.abs(rank[e.target] - rank[e.source]) - 1);
  const ranks = Object.values(rank);
  const depth = ranks.length ? 1 + Math.max(...ranks) - Math.min(...ranks) : 0;
  const labelled = graph.nodes.some((n) => n.shape && n.shape.length);
  if (labelled) dummies = 2 * dummies + laid.length;
  const nodes = graph.nodes.length;
  // Frames (dagre clusters, groups.js) about double the time: measured on 300-node chains.
  const framed = graph.clusters?.length ? 2 : 1;
  const ms = Math.round(framed * (1.2 * (nodes + dummies) + (nodes * nodes) / 1000));
  return { nodes, edges: laid.length, dummies, depth, ms };
}

/** The chip for edge `edge` from a reference node labelled `label`: its size. */
function chipSize(label) {
  const chars = [...chipText(label)].length;
  return { width: chars * CHIP.char + 2 * CHIP.pad, height: CHIP.height };
}

/** A chip's text: the reference node's label, cut to CHIP.maxChars characters (clip.js). */
export function chipText(label) {
  return clipLabel(label, CHIP.maxChars);
}

// A graph laid out top to bottom (a portrait phone's) is as narrow as one of dagre's
// alignments makes it: its default averages the four, which leaves a node between the columns
// of its two inputs (the tanh example's d between a and e: 3.5 columns, 495 layout px wide,
// where "UR" takes 2 columns, 390 px), so a phone showed it only cut at its edge at 14 px
// numbers (c, to a student joining a live room at step 14). Each try is a whole layout (a
// 65-node graph: 231 ms for the three against 159 for one, min of 7 on a loaded machine): tried
// up to NARROWEST_UP_TO nodes. The default wins a tie (its edges are the straightest).
const ALIGNMENTS = [undefined, "UR", "UL"];
const NARROWEST_UP_TO = 100;

/** dagre.layout(g) with the alignment (ALIGNMENTS) that gives the narrowest drawing. */
function layOutNarrowest(g) {
  let best = null;
  for (const align of ALIGNMENTS) {
    g.setGraph({ ...g.graph(), align });
    dagre.layout(g);
    if (!best || g.graph().width < best.width - 1) best = { align, width: g.graph().width };
  }
  if (best.align === ALIGNMENTS.at(-1)) return; // laid out so already
  g.setGraph({ ...g.graph(), align: best.align });
  dagre.layout(g);
}

/**
 * Positions for `graph` ({nodes, edges} of the trace): boxes centred at (x, y) and edge
 * polylines from input to consumer, plus the drawing's width and height. `chars` (node id
 * -> characters, from widestLines) sizes the boxes for their numbers. Edges from `refs`
 * (referenceNodes) are not laid out: each is a chip {id (the edge's), ref, consumer, arg,
 * label, uses, x, y, width, height} left of its consumer, in `chips`; the reference node
 * keeps its own box. A node with a `box` ({width, height}) is a collapsed group's box
 * (groups.js viewGraph); the graph's `clusters` and `frameOf` put open groups in frames,
 * returned in `frames` ({id, name, kind, parent, x, y, width, height}, centred). `upright`
 * (a portrait phone or tablet: render/touch.js isUpright) ranks top to bottom, the leaves at
 * the top, so the graph takes the screen's height (issue 17 §2: left to right, a 390 or
 * 820 px wide screen cut the tanh example's leaves at Done, 40% of its height empty); a
 * graph with chips (drawn left of their consumer, in the gap between left-to-right ranks)
 * keeps left to right. May throw: dagre recurses, see planLayout.
 */
export function layoutGraph(graph, { chars = {}, refs = {}, upright = false } = {}) {
  const byId = Object.fromEntries(graph.nodes.map((n) => [n.id, n]));
  const chipEdges = graph.edges.filter((e) => e.source in refs);
  const widest = Math.max(0, ...chipEdges.map((e) => chipSize(chipText(byId[e.source].label)).width));
  // Open groups (groups.js viewGraph's `clusters`) are dagre clusters: a frame round them.
  const clusters = graph.clusters ?? [];
  const g = new dagre.graphlib.Graph({ multigraph: true, compound: clusters.length > 0 });
  // Chips sit between the ranks, left of their consumer: the gap keeps room for the widest.
  const ranksep = Math.max(50, widest ? widest + 28 : 0);
  const ranker = graph.nodes.length > FAST_RANKER_ABOVE ? "tight-tree" : "network-simplex";
  const rankdir = upright && chipEdges.length === 0 ? "TB" : "LR";
  g.setGraph({ rankdir, nodesep: 28, ranksep, edgesep: 16, marginx: 24, marginy: 24, ranker });
  g.setDefaultEdgeLabel(() => ({}));
  const shapes = {};
  for (const node of graph.nodes) {
    // A collapsed group's box (groups.js) comes sized.
    g.setNode(node.id, node.box ? { ...node.box } : boxSize(node, chars[node.id]));
    shapes[node.id] = node.shape;
  }
  for (const c of clusters) g.setNode(frameId(c.id), {});
  for (const c of clusters) if (c.parent != null) g.setParent(frameId(c.id), frameId(c.parent));
  for (const [id, frame] of graph.frameOf ?? []) g.setParent(id, frameId(frame));
  // `a * a` gives two edges between one pair of nodes: the edge id keeps them apart. A
  // tensor's edge carries its shape: dagre keeps room for the label between the ranks.
  const laid = graph.edges.filter((e) => !(e.source in refs));
  for (const edge of laid) {
    const text = edgeLabel(shapes[edge.source]);
    const label = text ? { width: text.length * EDGE_LABEL.char + 12, height: EDGE_LABEL.height, labelpos: "c" } : {};
    g.setEdge(edge.source, edge.target, label, edge.id);
  }
  if (rankdir === "TB" && graph.nodes.length <= NARROWEST_UP_TO) layOutNarrowest(g);
  else dagre.layout(g);

  const down = METRICS.calloutRoom;
  const nodes = graph.nodes.map((node) => {
    const { x, y, width, height, rows, block, heat } = g.node(node.id);
    return { id: node.id, node, x, y: y + down, width, height, rows, block, heat };
  });
  const edges = laid.map((edge) => {
    const e = g.edge(edge.source, edge.target, edge.id);
    const text = edgeLabel(shapes[edge.source]);
    return {
      ...edge,
      points: e.points.map(({ x, y }) => ({ x, y: y + down })),
      label: text ? { text, x: e.x, y: e.y + down } : null,
    };
  });
  const { width, height } = g.graph();
  const at = Object.fromEntries(nodes.map((n) => [n.id, n]));
  const frames = clusters.map((c) => {
    const { x, y, width: w, height: h } = g.node(frameId(c.id));
    return { id: c.id, name: c.name, kind: c.kind, parent: c.parent, x, y: y + down, width: w, height: h };
  });
  return { nodes, edges, chips: placeChips(chipEdges, at, byId, refs), frames, width, height: height + down, rankdir };
}

/** The dagre id of the frame of open group `gid` (apart from a collapsed group's box id). */
const frameId = (gid) => `frame:${gid}`;

/**
 * Chips left of their consumer, in the gap between the ranks: the first at the bottom of
 * the box, the next at its top, and so on (the laid-out edges arrive at the box's middle).
 */
function placeChips(chipEdges, at, byId, refs) {
  const count = {};
  return chipEdges.map((edge) => {
    const box = at[edge.target];
    const i = (count[edge.target] = (count[edge.target] ?? -1) + 1);
    const label = chipText(byId[edge.source].label);
    const { width, height } = chipSize(label);
    const row = Math.floor(i / 2);
    const offset = box.height / 2 - height / 2 - 4 - row * (height + CHIP.gap);
    return {
      id: edge.id, ref: edge.source, consumer: edge.target, arg: edge.arg, label, uses: refs[edge.source],
      x: box.x - box.width / 2 - 10 - width / 2,
      y: box.y + (i % 2 === 0 ? offset : -offset),
      width, height,
    };
  });
}

/**
 * The layout of a trace's graph, or why there is none; never throws. Answers
 * {layout, refs, cost} or {layout: null, reason, nodes, cost, budget, message}: reason
 * "too_large" when the predicted cost (predictLayout, with leaves and constants of many
 * uses as chips) is over `budget` ms, "too_deep" when it has more than MAX_LAYOUT_DEPTH
 * ranks (dagre's recursion), "layout_failed" when the layout threw (message says how).
 * `engine` is the layout function (layoutGraph; tests pass one that fails).
 */
export function planLayout(graph, events = [], { budget = LAYOUT_BUDGET_MS, engine = layoutGraph, upright = false } = {}) {
  const { refs, cost, refused } = predictPlan(graph, { budget });
  if (refused) return refused;
  try {
    return { layout: engine(graph, { chars: widestLines(graph, events), refs, upright }), refs, cost };
  } catch (error) {
    return failedPlan(graph, cost, budget, error);
  }
}

/**
 * The part of planLayout before the layout: {refs, cost}, and `refused` (the plan to show
 * instead) when the cost is over `budget`. The page's worker (layout-job.js) runs the rest.
 */
export function predictPlan(graph, { budget = LAYOUT_BUDGET_MS } = {}) {
  const refs = referenceNodes(graph);
  const cost = predictLayout(graph, { refs });
  const nodes = graph.nodes.length;
  const reason = cost.ms > budget ? "too_large" : cost.depth > MAX_LAYOUT_DEPTH ? "too_deep" : null;
  const refused = reason ? { layout: null, reason, nodes, cost, budget, maxDepth: MAX_LAYOUT_DEPTH } : null;
  return { refs, cost, refused };
}

/** The plan of a layout that threw `error` (or ran out of time). */
export function failedPlan(graph, cost, budget, error) {
  const message = String(error?.message ?? error);
  return { layout: null, reason: "layout_failed", nodes: graph.nodes.length, cost, budget, message };
}

// ---------------------------------------------------------------- callouts

const chipIndex = new WeakMap(); // layout -> edge id -> chip

/** The chip drawn for edge `edgeId` in `layout`, or null (a laid-out edge, or none). */
export function chipOf(layout, edgeId) {
  if (!layout?.chips?.length || edgeId === undefined) return null;
  let index = chipIndex.get(layout);
  if (!index) chipIndex.set(layout, (index = new Map(layout.chips.map((c) => [c.id, c]))));
  return index.get(edgeId) ?? null;
}

/**
 * Where the `+=` callout of `event` hangs when its edge is drawn as a chip: the chip, so
 * every contribution to a shared weight is seen arriving beside the consumer that sends
 * it; null for a laid-out edge (the callout hangs on the input's box).
 */
export function calloutAnchor(layout, event) {
  if (event?.kind !== "accumulate" && event?.kind !== "unbroadcast") return null;
  return chipOf(layout, `${event.input}->${event.node}#${event.arg}`);
}

/** The size of a callout showing `lines` (monospace, METRICS.calloutFont, 1.25 apart). */
export function calloutSize(lines) {
  const m = METRICS;
  return {
    width: Math.max(...lines.map((l) => [...l].length)) * m.numChar + 2 * m.calloutPad,
    height: Math.round(lines.length * m.calloutFont * 1.25) + 8,
  };
}

function overlap(a, b) {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

function rectAt(x, y, { width, height }) {
  return { x0: x - width / 2, x1: x + width / 2, y0: y - height / 2, y1: y + height / 2 };
}

/**
 * Where the centre of a callout of `size` goes for node `id`: just above the node (the
 * layout leaves room above the top row), else below it, else shifted sideways, else over
 * the node's own header; the first place that covers no other box, nor the node's own
 * numbers, and stays inside the drawing; else the one that covers least (numbers count ten
 * times more than running past the drawing's edge).
 */
export function placeCallout(layout, id, size, anchor = null) {
  const at = anchor ?? layout.nodes.find((n) => n.id === id);
  if (!at) return null;
  const gap = 6;
  const above = at.y - at.height / 2 - gap - size.height / 2;
  const below = at.y + at.height / 2 + gap + size.height / 2;
  const candidates = [];
  for (const y of [above, below]) {
    for (const shift of [0, -0.25, 0.25, -0.5, 0.5]) candidates.push({ x: at.x + shift * size.width, y });
  }
  candidates.push({ x: at.x, y: at.y - at.height / 2 + METRICS.header / 2 }); // its own header
  const others = layout.nodes.filter((n) => n !== at && n.id !== id).map((n) => rectAt(n.x, n.y, { width: n.width + 8, height: n.height + 8 }));
  const top = at.y - at.height / 2;
  others.push({ x0: at.x - at.width / 2, x1: at.x + at.width / 2, y0: top + METRICS.header, y1: top + at.height }); // its own numbers
  // An open group's title and collapse control (render/groups.js drawFrames: 15px bold, at its top left).
  for (const f of layout.frames ?? []) {
    const x0 = f.x - f.width / 2;
    const y0 = f.y - f.height / 2;
    others.push({ x0, x1: x0 + 44 + 9.5 * Math.min([...String(f.name)].length, 48), y0, y1: y0 + 26 });
  }
  const margin = 16; // the fitted view keeps this much around the drawing
  const bounds = { x0: -margin, y0: -margin, x1: layout.width + margin, y1: layout.height + margin };
  const cost = (c) => {
    const r = rectAt(c.x, c.y, size);
    const area = size.width * size.height;
    return 10 * others.reduce((sum, o) => sum + overlap(r, o), 0) + (area - overlap(r, bounds));
  };
  let best = null;
  for (const c of candidates) {
    const k = cost(c);
    if (k === 0) return c;
    if (!best || k < best.cost) best = { ...c, cost: k };
  }
  return { x: best.x, y: best.y };
}
