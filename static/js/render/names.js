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
import { MIN_TEXT_PX } from "../viewport.js";
import { placeDeadTags } from "./dead.js";

// The names' advance per character, in ems (DejaVu Sans Bold, the page's sans, is 0.55-0.75;
// generous, so a name said to fit does).
const CHAR_EM = 0.72;
// Past this many boxes the overview keeps each box's own text: a scan of every box at each
// 5% of zoom would cost a frame.
export const NAMES_UP_TO = 2000;
// An infix op's token in a node's label (the program's text, "X @ W1 + b1").
const INFIX = { add: "+", sub: "-", mul: "*", div: "/", pow: "**", matmul: "@" };

/**
 * What the overview may name in `layout` (layout.js): one {id, x, y, width, height, name} a
 * box (a node's label, a collapsed group's name), in layout units; null past NAMES_UP_TO.
 */
export function nameBoxes(layout) {
  if (!layout || layout.nodes.length > NAMES_UP_TO) return null;
  return layout.nodes
    .map((n) => ({
      id: n.id, x: n.x, y: n.y, width: n.width, height: n.height,
      name: String(n.node?.label ?? n.node?.name ?? ""), op: INFIX[n.node?.op] ?? null,
    }))
    .filter((n) => n.name);
}

/**
 * The names `boxes` (nameBoxes) shown at scale `k` (screen px per layout unit) with the text
 * size `textScale`: those whose name at MIN_TEXT_PX * textScale on screen fits inside their
 * box, each with its font size in layout units.
 */
export function namesAt(boxes, k, textScale = 1) {
  const size = (MIN_TEXT_PX * textScale) / k;
  return (boxes ?? []).filter((b) => size <= b.height)
    .map((b) => ({ ...b, size, name: fitted(b, Math.floor((b.width - 8) / (CHAR_EM * size))) }))
    .filter((b) => b.name);
}

/**
 * `box`'s name in at most `room` characters, the first that fits of: whole; its end from its
 * own operator on ("X @ W1 + b1" as "… + b1": the node's op and its last operand, which the
 * wider name says too), without the "…" ("+ b1"), the op alone ("+"); a call's function
 * ("tanh(d)" as "tanh"); else null. A box left blank read as a missing node (a review: the
 * spirals' `h @ W2` box among named ones).
 */
export function fitted({ name, op = null }, room) {
  const tokens = name.split(" ");
  const at = op ? tokens.lastIndexOf(op) : -1;
  const end = at > 0 ? tokens.slice(at).join(" ") : null;
  const call = /^([A-Za-z_][\w.]*)\(/.exec(name)?.[1] ?? null;
  const tries = [name, end && `… ${end}`, end, at > 0 ? op : null, call];
  return tries.find((t) => t && [...t].length <= room) ?? null;
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
