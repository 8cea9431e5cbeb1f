// Dead ReLU units on the graph (issue 15 §2-3): a node holding a unit whose pre-activation
// was <= 0 for every sample of an iteration is marked dead, with its units and the iteration
// they died, as a tag over its box ("dead: unit 2 (since iteration 0)"), a class for the
// style and `data-dead` for tests. Marks are put back after each step's restyle and taken
// off a node no longer listed. Takes the graph's svg; no global ids.

import { deadByNode, deadText } from "../train.js";

const SVG = "http://www.w3.org/2000/svg";

/** Mark on `svg` the nodes of `dead` ([{node, name, unit, iteration}]); unmark the rest. */
export function markDead(svg, dead) {
  const byNode = deadByNode(dead ?? []);
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
      // in the box's own coordinates: its g.at (render/groups.js placed), centred on the box
      const box = g.__data__ ?? { width: 0, height: 0 };
      tag = g.ownerDocument.createElementNS(SVG, "text");
      tag.setAttribute("class", "dead-tag");
      tag.setAttribute("x", "0"); // centred: at an overview its larger text stays over its box
      tag.setAttribute("text-anchor", "middle");
      tag.setAttribute("y", String(-box.height / 2 - 9));
      (g.querySelector(":scope > g.at") ?? g).append(tag);
      moved = true;
    }
    // The tag's end ("(since iteration 0)") is its own tspan: the overview (names.js) shows
    // only the head, "h: unit 3 dead", at the names' readable size.
    const cut = text.indexOf(" (since");
    const head = g.ownerDocument.createElementNS(SVG, "tspan");
    head.textContent = cut > 0 ? text.slice(0, cut) : text;
    const since = g.ownerDocument.createElementNS(SVG, "tspan");
    since.setAttribute("class", "dead-since");
    since.textContent = cut > 0 ? text.slice(cut) : "";
    tag.replaceChildren(head, since);
    const label = g.getAttribute("aria-label");
    if (label && !label.includes("dead")) g.setAttribute("aria-label", `${label} (${text})`);
  }
  if (moved) svg.dispatchEvent(new CustomEvent("marks"));
}
