// What the camera frames: the boxes (layout units, {x0, y0, x1, y1}) of the parts of the
// graph a moment of the walk needs on screen: the whole drawing (contentBox), a step's nodes
// and callout (stepBox), an overview's (overviewBox), a pinned node's neighbours (pinBox),
// each with the `core` to keep when all of it does not fit. viewport.js turns a box into a
// transform. No DOM and no d3, so `node --test` covers it.

import { calloutAnchor, calloutSize, chipOf, placeCallout } from "./layout.js";
import { calloutOf } from "./narration.js";
import { focusOf } from "./timeline.js";

// An overview that cannot show the whole graph at OVERVIEW_SCALE (viewport.js) shows every
// leaf with the output, down to this (README: step 0 shows the whole graph, else every leaf
// with the output): the three spirals at 1024x768 in Train mode (a 760 x 271 px graph area
// under the band) needed 0.23 for them and showed y, z and L at the readable scale instead,
// with a leaf cut at the left (a review of issue 14). Under
// NUMBERS_FROM_PX either way, an overview draws the boxes' names at 14 px (render/names.js).
export const LEAVES_SCALE = 0.2;

/**
 * What there is to see of `layout`: the box (layout units) of its nodes, edges, chips and
 * group frames, without
 * the empty room the layout keeps above the top row for callouts.
 */
export function contentBox(layout) {
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const add = (x0, y0, x1, y1) => {
    box.x0 = Math.min(box.x0, x0); box.y0 = Math.min(box.y0, y0);
    box.x1 = Math.max(box.x1, x1); box.y1 = Math.max(box.y1, y1);
  };
  for (const n of layout.nodes) add(n.x - n.width / 2, n.y - n.height / 2, n.x + n.width / 2, n.y + n.height / 2);
  for (const e of layout.edges) for (const p of e.points) add(p.x, p.y, p.x, p.y);
  for (const c of layout.chips ?? []) add(c.x - c.width / 2, c.y - c.height / 2, c.x + c.width / 2, c.y + c.height / 2);
  // An open group's frame (its title and collapse control on its top edge) is drawn too.
  for (const f of layout.frames ?? []) add(f.x - f.width / 2, f.y - f.height / 2, f.x + f.width / 2, f.y + f.height / 2);
  return Number.isFinite(box.x0) ? box : { x0: 0, y0: 0, x1: 0, y1: 0 };
}

/**
 * What the camera keeps in view for the node `id` whose detail panel is open: the box of it
 * and its neighbours in `layout` (the nodes it reads and the nodes that read it), whose core
 * (revealTransform shows it when they do not fit) is the node's own box; null when it is not
 * drawn (in a collapsed group).
 */
export function pinBox(layout, id) {
  const own = boxOf(layout, [id]);
  if (!own) return null;
  const near = layout.edges.flatMap((e) => (e.source === id ? [e.target] : e.target === id ? [e.source] : []));
  return { ...boxOf(layout, [id, ...near]), core: own };
}

/** The smallest box holding the layout boxes of `ids` (unknown ids are skipped), or null. */
export function boxOf(layout, ids) {
  const wanted = new Set(ids);
  const nodes = layout.nodes.filter((n) => wanted.has(n.id));
  if (!nodes.length) return null;
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const n of nodes) {
    box.x0 = Math.min(box.x0, n.x - n.width / 2); box.y0 = Math.min(box.y0, n.y - n.height / 2);
    box.x1 = Math.max(box.x1, n.x + n.width / 2); box.y1 = Math.max(box.y1, n.y + n.height / 2);
  }
  return box;
}

/** The box {x0, y0, x1, y1} of a layout node or reference chip ({x, y}: its centre, and its
 * width and height; layout.js). */
export function centredBox(c) {
  return { x0: c.x - c.width / 2, y0: c.y - c.height / 2, x1: c.x + c.width / 2, y1: c.y + c.height / 2 };
}

/** The smallest box holding boxes `a` and `b` (either may be null). */
export function union(a, b) {
  if (!a || !b) return a ?? b;
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

/** The box (layout units) of the callout render/graph.js draws for `event`, or null. */
function calloutBox(layout, event) {
  const note = calloutOf(event);
  const size = note && calloutSize(note.lines);
  const at = size && placeCallout(layout, note.id, size, calloutAnchor(layout, event));
  return at && {
    x0: at.x - size.width / 2, y0: at.y - size.height / 2, x1: at.x + size.width / 2, y1: at.y + size.height / 2,
  };
}

/**
 * What a step needs on screen (layout units), or null for no event: for a backward edge
 * both of its ends (the consumer `node` and the `input`) and the callout; for a forward
 * value the node and its inputs; at the end the whole graph (overviewBox). The box's `core`
 * is what must stay in view when all of it does not fit at the camera's scale: for a
 * backward edge its two ends (whose own core is the receiving node and its callout), else
 * the node whose value or adjoint changes.
 */
export function stepBox(layout, event) {
  if (event?.kind === "done") return doneBox(layout, event);
  const { current, source, target, edge } = focusOf(event);
  if (current === undefined && target === undefined) return null;
  const callout = calloutBox(layout, event);
  // Along a reference chip the step happens beside the consumer: the chip stands for the
  // shared node, which may be far away (its box shows the sum all the same).
  const chip = chipOf(layout, edge);
  if (chip) {
    const core = union(centredBox(chip), callout);
    return { ...union(boxOf(layout, [source]), core), core };
  }
  const core = union(boxOf(layout, [current ?? target]), callout);
  if (!core) return null;
  if (current === undefined) {
    // A backward edge: when it and its callout do not fit, its two ends (the node sending
    // the gradient and the one receiving it) come first; the receiving node and its
    // callout when even they do not (a tensor's callout is as wide as two boxes).
    const ends = boxOf(layout, [source, target]);
    return { ...union(ends, core), core: ends ? { ...ends, core } : core };
  }
  const inputs = layout.edges.filter((e) => e.target === current).map((e) => e.source);
  return { ...union(boxOf(layout, [current, ...inputs]), core), core };
}

// Past this many boxes (or events) the walk's scale is not fitted to its steps (stepSizes):
// the callout of each step is placed against every box, and a graph this big is shown at
// the readable floor anyway; the camera still pans to each step.
export const STEP_SIZES_UP_TO = { nodes: 400, events: 4000 };

/**
 * The box (layout units) of what each step of `events` needs on screen (stepBox of
 * `drawn(event)`: the event as drawn, its nodes in collapsed groups replaced by their boxes),
 * one per distinct box, for viewScale; null for a layout or walk past
 * STEP_SIZES_UP_TO. Done and step 0 are overviews (overviewBox), not steps.
 */
export function stepBoxes(layout, events, drawn = (event) => event) {
  if (!layout || layout.nodes.length > STEP_SIZES_UP_TO.nodes || events.length > STEP_SIZES_UP_TO.events) return null;
  const seen = new Map();
  for (const event of events) {
    if (event?.kind === "done") continue;
    const box = stepBox(layout, drawn(event));
    if (!box) continue;
    const { x0, y0, x1, y1 } = box;
    seen.set([x0, y0, x1, y1].map(Math.round).join(","), { x0, y0, x1, y1 });
  }
  return [...seen.values()];
}

/**
 * What the last step (a done event) needs on screen: the output, which is its core, and the
 * leaves whose gradients the narration reads out. Without it the camera stayed where the
 * previous step had panned it, and the output could end up off screen.
 */
function doneBox(layout, event) {
  return overviewBox(layout, event.output?.node);
}

/**
 * The box of the whole graph, shown whole at step 0 and at Done down to OVERVIEW_SCALE
 * (revealTransform); its `core`, when it cannot be, is every leaf with the output
 * `outputId`, down to LEAVES_SCALE, whose own core is the output. Null when the
 * output is not drawn. In hvp mode that last core is the leaves instead, themselves shown
 * whole and leaning to their side (`lean`: hvpLeaves). The `opening` frame (step 0) shows
 * the output with its inputs (as the output's forward step does, stepBox) before the output
 * alone, down to the camera's `reach` for a step; Done keeps the output at its own scale,
 * where its number reads.
 */
export function overviewBox(layout, outputId, { opening = false } = {}) {
  const output = boxOf(layout, [outputId]);
  if (!output) return null;
  // The whole walk is behind Done: the camera zooms out to show all of the graph (the
  // leaves and the output alone left the constants and ops past them cut at the edge);
  // failing that, the leaves whose gradients the narration reads out, with the output.
  // A walk opening on the output alone showed a 390 px phone's embed of an XOR iteration L
  // at the right edge, its inputs z and y cut (issue 17): nothing said what L came from.
  const leaves = layout.nodes.filter((n) => n.node?.role === "leaf").map((n) => n.id);
  const hvp = hvpLeaves(layout);
  const inputs = opening ? layout.edges.filter((e) => e.target === outputId).map((e) => e.source) : [];
  const core = hvp ? { ...boxOf(layout, hvp), whole: true, overview: true, lean: true }
    : inputs.length ? { ...boxOf(layout, [outputId, ...inputs]), core: output } : output;
  const ends = { ...union(boxOf(layout, leaves), output), core, whole: true, overview: true, floor: LEAVES_SCALE };
  return { ...contentBox(layout), core: ends, whole: true, overview: true };
}

/**
 * The leaves of an hvp walk's graph (their `adjoint_symbol` is `(H v)_a`: docs/trace-format.md,
 * "hvp mode"), or null for another graph. Its walk starts at them (their tangents are v) and
 * ends at them (their adjoints are H v, which the Done narration reads out), while its output
 * s = ⟨∇L, v⟩ is at the far end of the backward graph, about four times the program's length
 * away: when both ends do not fit even at OVERVIEW_SCALE, step 0 and Done show the leaves
 * rather than s (a 2x3 tanh(X @ W) at 1024x768 needs 0.22; s alone left them off screen).
 */
function hvpLeaves(layout) {
  const ids = layout.nodes
    .filter((n) => n.node?.role === "leaf" && String(n.node.adjoint_symbol ?? "").startsWith("(H v)_"))
    .map((n) => n.id);
  return ids.length ? ids : null;
}
