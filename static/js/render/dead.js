// Dead ReLU units on the graph (issue 15 §2-3): a node holding a unit whose pre-activation
// was <= 0 for every sample of an iteration is marked dead, with its units and the iteration
// they died, as a tag beside its box ("dead: unit 2 (since iteration 0)"), a class for the
// style and `data-dead` for tests. Marks are put back after each step's restyle and taken
// off a node no longer listed. Takes the graph's svg; no global ids. The tag goes where it
// covers no other box (tagplace.js: above or below, centred or from an edge, wrapped, else
// its "(since ...)" left to its tooltip), placed again at the overview's names size
// (render/names.js), where it prints larger: at Fit seed 003's tag stood over W2.T and ran
// under `h @ W2.T` (a review of issue 14).

import { deadMarks, deadTagParts, deadText } from "../train.js";
import { placeTag as placeAmong } from "../tagplace.js";
import { METRICS } from "../layout.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * Mark on `svg` the nodes of `dead` ([{node, name, unit, iteration, nodes?}]: a unit of scalars
 * on each of its `nodes`); unmark the rest.
 */
export function markDead(svg, dead) {
  const byNode = deadMarks(dead ?? []);
  let moved = false; // a tag added or taken off: the camera frames the marks (render/zoom.js)
  for (const g of svg.querySelectorAll("g.node.dead")) {
    if (byNode[g.dataset.node]) continue;
    g.classList.remove("dead");
    delete g.dataset.dead;
    const tag = g.querySelector("text.dead-tag");
    if (tag) {
      tag.remove();
      moved = true;
    }
  }
  for (const [id, units] of Object.entries(byNode)) {
    const g = svg.querySelector(`g.node[data-node="${CSS.escape(id)}"]`);
    if (!g) continue;
    const text = deadText(units);
    if (g.dataset.dead === text && g.querySelector("text.dead-tag")) continue;
    g.classList.add("dead");
    g.dataset.dead = text;
    let tag = g.querySelector("text.dead-tag");
    if (!tag) {
      // in the box's own coordinates: its g.at (render/groups.js placed)
      tag = g.ownerDocument.createElementNS(SVG, "text");
      tag.setAttribute("class", "dead-tag");
      (g.querySelector(":scope > g.at") ?? g).append(tag);
      moved = true;
    }
    const was = tag.__mark__;
    placeTag(svg, g, tag, text);
    // placed elsewhere (above or below): the camera frames the tag where it is (tags.js)
    if (!sameBox(was, tag.__mark__)) moved = true;
    const label = g.getAttribute("aria-label");
    if (label && !label.includes("dead")) g.setAttribute("aria-label", `${label} (${text})`);
  }
  if (moved) svg.dispatchEvent(new CustomEvent("marks"));
}

const sameBox = (a, b) => ["x0", "y0", "x1", "y1"].every((k) => a?.[k] === b?.[k]);

// The boxes a tag may not cover (layout units): the other nodes' (with their focus ring) and
// the reference chips, as the layout placed them (the data d3 bound).
function obstacles(svg, own) {
  const out = [];
  for (const e of svg.querySelectorAll("g.node, g.chip")) {
    const d = e.__data__;
    if (!d?.width || e === own) continue;
    const r = e.classList.contains("node") ? METRICS.ring : 0;
    out.push({ x0: d.x - d.width / 2 - r, x1: d.x + d.width / 2 + r, y0: d.y - d.height / 2 - r, y1: d.y + d.height / 2 + r });
  }
  return out;
}

// At an overview (names shown, numbers hidden: train.css) the tag prints its head alone at
// the names' size (--names-size, layout units); else all of it at 15 (train.css).
function tagFont(svg) {
  if (svg.dataset.names !== "shown" || svg.dataset.numbers !== "hidden") return { font: 15, overview: false };
  const size = parseFloat(svg.style.getPropertyValue("--names-size"));
  return { font: Number.isFinite(size) && size > 0 ? size : 15, overview: true };
}

/**
 * Lay out node `g`'s dead tag `tag` saying `text` in the place tagplace.js finds clear of the
 * other boxes of `svg`: a tspan a line, the "(since ...)" end in its own (.dead-since, which
 * an overview hides); when even the head alone has no clear place it is drawn where it
 * covers least. An end left out is said in the tag's tooltip (and the node's aria-label).
 */
function placeTag(svg, g, tag, text) {
  const doc = g.ownerDocument;
  const box = g.__data__ ?? { x: 0, y: 0, width: 0, height: 0 };
  const { head, tail } = deadTagParts(text);
  const { font, overview } = tagFont(svg);
  const at = placeAmong(box, obstacles(svg, g), { head, tail: overview ? "" : tail, font });
  tag.setAttribute("text-anchor", at.anchor);
  tag.setAttribute("x", String(at.x));
  tag.setAttribute("y", String(at.y));
  tag.__mark__ = at.box; // where it is, for the camera (render/covers.js markedBoxes)
  tag.dataset.place = `${at.box.y0 < box.y ? "above" : "below"} ${at.anchor}${at.clear ? "" : " covering"}`;
  const lines = at.shape.lines.map((line, i) => {
    const span = doc.createElementNS(SVG, "tspan");
    span.setAttribute("x", String(at.x));
    if (i) span.setAttribute("dy", "1.2em");
    span.textContent = i ? ` ${line}` : line; // spaced, so the text reads as one sentence
    return span;
  });
  const since = doc.createElementNS(SVG, "tspan");
  since.setAttribute("class", at.shape.tail === "cut" ? "dead-since dead-cut" : "dead-since");
  since.textContent = tail;
  if (at.shape.tail === "own") {
    since.setAttribute("x", String(at.x));
    since.setAttribute("dy", "1.2em");
  }
  const parts = [...lines, since];
  if (at.shape.tail === "cut") {
    const title = doc.createElementNS(SVG, "title");
    title.textContent = text;
    parts.unshift(title);
  }
  tag.replaceChildren(...parts);
}

/** Place `svg`'s dead tags again for its text size now (render/names.js: an overview's names). */
export function placeDeadTags(svg) {
  for (const g of svg.querySelectorAll("g.node.dead")) {
    const tag = g.querySelector("text.dead-tag");
    if (tag && g.dataset.dead) placeTag(svg, g, tag, g.dataset.dead);
  }
}
