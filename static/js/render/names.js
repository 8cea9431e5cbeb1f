// Names at an overview (issue 15 §3). Zoomed out until a node's numbers are not drawn
// (render/zoom.js data-numbers="hidden": step 0 or Done of a big graph, Fit, the user's own
// zoom), a box's own name prints under 12 px and its op tag, captions and the edges' shapes
// at 4-8 px: the three spirals' step 0 at Fit printed them at 4 px at 1024x768 and 5 px at
// 1280x800 in the projector theme, which no room reads. There the drawing shows each box's
// name at MIN_TEXT_PX (times the page's text size) on screen, across the box, where it fits
// the box's width, and none of the smaller text (app.css, by the svg's data-names); the heat
// maps, the role's colours and the edges show the graph's shape. Zoomed in, every box's own
// text is back. The names are redrawn only when the scale moves by 5% or more.

import * as d3 from "d3";
import { clipLabel } from "../clip.js";
import { METRICS } from "../layout.js";
import { MIN_TEXT_PX } from "../viewport.js";
import { placeDeadTags } from "./dead.js";

// The names' advance per character, in ems (DejaVu Sans Bold, the page's sans, is 0.55-0.75;
// generous, so a name said to fit does).
const CHAR_EM = 0.72;
// Past this many boxes the overview keeps each box's own text: a scan of every box at each
// 5% of zoom would cost a frame.
export const NAMES_UP_TO = 2000;
// An infix op's token in a node's label (the program's text, "X @ W1 + b1").
// A constant's name that is a number (engine/trace: its label is its value).
const NUMBER = /^-?\d[\d.]*(e[+-]?\d+)?$/i;
const INFIX = { add: "+", sub: "-", mul: "*", div: "/", pow: "**", matmul: "@" };

/**
 * What the overview may name in `layout` (layout.js): one {id, x, y, width, height, name, op,
 * regions} a box (a node's label, a collapsed group's name), in layout units; null past
 * NAMES_UP_TO. `regions` (freeRegions) are where its name may stand without covering a heat map.
 */
export function nameBoxes(layout) {
  if (!layout || layout.nodes.length > NAMES_UP_TO) return null;
  return layout.nodes
    .map((n) => ({
      id: n.id, x: n.x, y: n.y, width: n.width, height: n.height,
      name: String(n.node?.label ?? n.node?.name ?? ""), op: INFIX[n.node?.op] ?? null,
      regions: freeRegions(n),
    }))
    .filter((n) => n.name);
}

/**
 * Where in box `n` (layout.js: center x, y, width, height; heat {width} the heat maps' size,
 * drawn at the right of the value and grad blocks: render/heatmap.js) a name covers no heat
 * map, best first, each {x, y (its center), width, height}: the whole box when it has none;
 * else the part left of the heat maps, the header band across the top (the box's own label's
 * row, hidden at an overview), and the strip just above the box. A name centered on the box
 * ran into the heat maps of `b1`, `W1` and `h @ W2` in the MLP's overview (a review).
 */
export function freeRegions(n) {
  const whole = { x: n.x, y: n.y, width: n.width, height: n.height };
  const heat = n.heat?.width ?? 0;
  if (!heat) return [whole];
  const left = n.x - n.width / 2;
  const top = n.y - n.height / 2;
  const free = n.width - METRICS.pad - heat - 4; // the heat map's left edge, less a margin
  const header = METRICS.header + 2; // the heat maps start 2 units under the header's rule
  return [
    { x: left + free / 2, y: n.y, width: free, height: n.height },
    { x: n.x, y: top + header / 2, width: n.width, height: header },
    { x: n.x, y: top, width: n.width, height: Infinity, above: true }, // y: the box's top edge
  ];
}

/**
 * The names `boxes` (nameBoxes) shown at scale `k` (screen px per layout unit) with the text
 * size `textScale`: where its name at MIN_TEXT_PX * textScale on screen fits a free region of
 * its box (freeRegions): the most of it inside the box, else above it (a review asked names
 * off the heat maps, clipped or above); each with its font size and place in layout units.
 */
export function namesAt(boxes, k, textScale = 1) {
  const size = (MIN_TEXT_PX * textScale) / k;
  return (boxes ?? []).map((b) => {
    const found = (b.regions ?? [b]).filter((r) => size <= r.height)
      .map((r) => ({ r, name: fitted(b, Math.floor((r.width - 8) / (CHAR_EM * size))) }))
      .filter((c) => c.name);
    const longest = (cs) => cs.reduce((best, c) => ([...c.name].length > [...(best?.name ?? "")].length ? c : best), null);
    // the most of it inside the box; above it only when nothing fits inside (a name above
    // ran into the box over it: the spirals' "X @ W1" over b1's)
    const pick = longest(found.filter((c) => !c.r.above)) ?? longest(found);
    return pick && { ...b, size, name: pick.name, x: pick.r.x, y: pick.r.above ? pick.r.y - 0.6 * size : pick.r.y };
  }).filter(Boolean);
}

/** Where the last `op` stands in `name` outside brackets and strings (-1: none): the node's own
 * operator ("gelu(a * b) * c" is a product of gelu(a * b) and c, never of b). A "'" is a
 * prime (gelu'), never a quote. */
function topLevel(name, op) {
  let depth = 0;
  let quote = null;
  let at = -1;
  for (let i = 0; i < name.length; i += 1) {
    const c = name[i];
    if (quote) { if (c === quote) quote = null; continue; }
    if (c === '"') quote = c;
    else if ("([{".includes(c)) depth += 1;
    else if (")]}".includes(c)) depth -= 1;
    else if (depth === 0 && name.startsWith(` ${op} `, i - 1) && i > 0) at = i;
  }
  return at;
}

/**
 * `box`'s name in at most `room` characters, the first that fits of: whole; its end from its
 * own operator on, outside brackets ("X @ W1 + b1" as "… + b1": the node's op and its last
 * operand, which the wider name says too), without the "…" ("+ b1"), the op alone ("+"); a
 * call's function when the name is one call ("tanh(d)" as "tanh"); the name clipped (clip.js:
 * "0.044715" as "0.04…", a constant's box was left blank); else null. A box left blank read as
 * a missing node (a review: the spirals' `h @ W2` box among named ones). Never a part that
 * leaves a bracket open or puts a second "…" right after a cut one ("… * …)…", a review).
 */
export function fitted({ name, op = null }, room) {
  const at = op ? topLevel(name, op) : -1;
  const end = at > 0 ? name.slice(at) : null;
  const call = /^([A-Za-z_][\w.]*)\(/.exec(name)?.[1] ?? null;
  const oneCall = call && enclosedCall(name);
  // clipped: a number ("0.04…") or a head cut between tokens ("gelu(x…)"), never a name's
  // first letters alone ("ta…" said nothing)
  const cut = room >= 3 ? clipLabel(name, room) : null;
  const head = cut?.split("…")[0] ?? "";
  const clipped = cut && (NUMBER.test(name) || /[^\p{L}\p{N}_.]/u.test(head.trim())) ? cut : null;
  const tries = [name, end && `… ${end}`, end, at > 0 ? op : null, oneCall ? call : null, clipped];
  return tries.find((t) => t && [...t].length <= room && !/…[)\]}"']*…/u.test(t)
    && (!end || t !== `… ${end}` || !end.includes("…"))) ?? null;
}

/** Whether `name` is one call, "f(...)", its first bracket closed at its end. */
function enclosedCall(name) {
  let depth = 0;
  const open = name.indexOf("(");
  for (let i = open; i < name.length; i += 1) {
    if (name[i] === "(") depth += 1;
    else if (name[i] === ")" && --depth === 0) return i === name.length - 1;
  }
  return false;
}

/**
 * Draw in `root` (the graph's svg, its drawing in g.world: render/graph.js) the overview's
 * names of `boxes` at scale `k`, or none (`k` null: the boxes' own text reads); sets the
 * svg's data-names to "shown" while they are drawn.
 */
export function showNames(root, boxes, k, textScale = 1) {
  const world = d3.select(root).select("g.world");
  const shown = k && boxes ? namesAt(boxes, k, textScale) : [];
  if (k && boxes) root.dataset.names = "shown";
  else delete root.dataset.names;
  // Marks that must read at every zoom (a dead unit's tag, train.css) take the names' size.
  if (k) root.style.setProperty("--names-size", `${(MIN_TEXT_PX * textScale) / k}px`);
  else root.style.removeProperty("--names-size");
  placeDeadTags(root); // larger or smaller now: placed again where they cover no box
  if (world.empty()) return;
  let layer = world.select("g.overview-names");
  if (layer.empty()) layer = world.append("g").attr("class", "overview-names").attr("aria-hidden", "true");
  layer.selectAll("text")
    .data(shown, (d) => d.id)
    .join("text")
    .attr("x", (d) => d.x).attr("y", (d) => d.y)
    .attr("text-anchor", "middle").attr("dominant-baseline", "central")
    .style("font-size", (d) => `${d.size}px`)
    .text((d) => d.name);
}

/**
 * The overview's names in `root` kept to the camera: `at(k, boxes, textScale)` draws `boxes`'
 * names (null: none) for scale `k` in 5% steps of it, each sized for its step's least scale
 * (never under 14 px at any scale in it), redrawn only when the step changes; `stale()` has
 * them redrawn at the next move (a new drawing, a new text size); `off()` takes them off.
 */
export function createNamer(root) {
  let drawn; // the step drawn for (null: none drawn; undefined: to be drawn)
  return {
    at(k, boxes, textScale) {
      const step = boxes ? Math.round(Math.log(k) / Math.log(1.05)) : null;
      if (step === drawn) return;
      drawn = step;
      showNames(root, boxes, step === null ? null : 1.05 ** (step - 0.5), textScale);
    },
    stale() { drawn = undefined; },
    off() {
      drawn = null;
      showNames(root, null, null);
    },
  };
}
