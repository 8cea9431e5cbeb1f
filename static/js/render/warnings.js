// What the walk does not record, drawn (issue 9, the bug lab): a node made inside
// `with no_grad():` is drawn as not recorded (grey, a dashed outline, a "no grad" tag: class
// no-grad, data-no-grad), and the edge into `detach(x)` / `stop_gradient(x)` carries a
// scissors mark where it is cut (g.cut-mark). And the trace's warnings (docs/trace-format.md,
// "Warnings") as a strip under the narration: at "Done", and in forward mode from a kink's
// step on; a warning with a place selects it in the editor when clicked. Which nodes and
// warnings is worked out in ../cuts.js (tested with node).

import { cutNodes, noGradNodes, warningLabel, warningPlace, warningsAt } from "../cuts.js";
import { METRICS } from "../layout.js";

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with attributes. */
function svgEl(doc, tag, attrs = {}) {
  const e = doc.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/**
 * Mark `walk`'s no_grad nodes and cut edges in `svg` (the graph, as render/graph.js drew it).
 * Cheap to call at every step: only the few nodes concerned are looked up, and each is
 * marked once per drawing (a redrawn graph has unmarked elements again).
 */
export function markUnrecorded(walk, svg) {
  const graph = walk?.trace?.graph;
  if (!graph) return;
  let marks = cache.get(graph);
  if (!marks) cache.set(graph, (marks = { noGrad: [...noGradNodes(graph)], cuts: [...cutNodes(graph)] }));
  for (const id of marks.noGrad) {
    const g = svg.querySelector(`g.node[data-node="${CSS.escape(id)}"]`);
    if (g && !g.classList.contains("no-grad")) markNoGrad(g);
  }
  for (const w of walk.trace.warnings ?? []) {   // known once the done event is in
    if (w.kind !== "unused" || !w.node) continue;
    const g = svg.querySelector(`g.node[data-node="${CSS.escape(w.node)}"]`);
    if (!g) continue;
    const output = walk.trace.output?.name ?? "the output";
    if (!g.classList.contains("unused")) markUnused(g, output);
    // the graph's restyle writes the label again at every step: said again after it
    const label = g.getAttribute("aria-label");
    if (label && !label.includes("not used")) g.setAttribute("aria-label", `${label} (not used by ${output}: no gradient)`);
  }
  if (!marks.cuts.length) return;
  for (const edge of svg.querySelectorAll("g.edge.cut:not([data-cut-mark])")) markCut(edge);
}

/**
 * A node the output does not use (an "unused" warning): its GRAD row says so, right of the
 * row's caption, in place of the gradient's numbers (an unused leaf's 0, which the tag drew
 * over: modes.css hides it; the narration and the detail panel still give it), squeezed to
 * the box's width when the output's name is long.
 */
function markUnused(g, output) {
  g.classList.add("unused");
  g.dataset.unused = "true";
  const caption = g.querySelector("g.grad-block text.caption");
  if (!caption) return;
  const box = caption.getBBox();
  const x = box.x + box.width + 8;
  const tag = svgEl(g.ownerDocument, "text", { class: "unused-tag", x: String(x), y: caption.getAttribute("y") ?? "0" });
  tag.textContent = `not used by ${output}`;
  caption.after(tag); // in the row's own coordinates
  // the row starts METRICS.pad inside the box (render/graph.js): room up to the same margin
  const room = (g.__data__?.width ?? Infinity) - 2 * METRICS.pad - x;
  if (tag.getComputedTextLength() > room && room > 0) {
    tag.setAttribute("textLength", String(room));
    tag.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}

const cache = new WeakMap(); // graph -> {noGrad: ids, cuts: ids}

/** A node not recorded: greyed, dashed, and a "no grad" tag above its box. */
function markNoGrad(g) {
  g.classList.add("no-grad");
  g.dataset.noGrad = "true";
  const box = g.__data__ ?? { width: 0, height: 0 };
  const tag = svgEl(g.ownerDocument, "text", {
    class: "no-grad-tag", x: String(-box.width / 2 + 4), y: String(-box.height / 2 - 9),
  });
  tag.textContent = "no grad · not recorded";
  g.append(tag);
  const label = g.getAttribute("aria-label");
  if (label && !label.includes("no_grad")) g.setAttribute("aria-label", `${label} (made inside no_grad: not recorded)`);
}

/** Scissors halfway along a cut edge, on a patch of paper that breaks the line. */
function markCut(edge) {
  const path = edge.querySelector("path.edge-line");
  if (!path) return;
  edge.dataset.cutMark = "true";
  const length = path.getTotalLength();
  const p = path.getPointAtLength(length / 2);
  const doc = edge.ownerDocument;
  const mark = svgEl(doc, "g", { class: "cut-mark", transform: `translate(${p.x},${p.y})` });
  const title = svgEl(doc, "title");
  title.textContent = "cut: no gradient crosses this edge (detach / stop_gradient)";
  const scissors = svgEl(doc, "text", { "text-anchor": "middle", "dominant-baseline": "central" });
  scissors.textContent = "✂";
  mark.append(title, svgEl(doc, "circle", { r: "15" }), scissors);
  edge.append(mark);
}

/**
 * The warning strip, put right after `narration`: show(walk, view) lists the warnings of
 * that step; a click on one with a place calls `onSelect(warning, walk)`.
 */
export function createWarningStrip(narration, { onSelect }) {
  const doc = narration.ownerDocument;
  const strip = doc.createElement("ul");
  strip.id = "warnings";
  strip.className = "warnings";
  strip.setAttribute("aria-label", "Warnings about these numbers");
  strip.hidden = true;
  narration.after(strip);
  let key = "";
  let shownWalk = null;

  function item(w) {
    const li = doc.createElement("li");
    li.dataset.kind = w.kind;
    if (w.node) li.dataset.node = w.node;
    if (w.line != null) li.dataset.line = String(w.line);
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "warning";
    button.title = w.line == null ? w.message : `${w.message} (click: show it in the program)`;
    const badge = doc.createElement("strong");
    badge.textContent = `⚠ ${warningLabel(w.kind)}`;
    const text = doc.createElement("span");
    text.className = "message";
    text.textContent = w.message;
    const place = doc.createElement("span");
    place.className = "place";
    place.textContent = warningPlace(w);
    button.append(badge, " ", text, place);
    if (w.line == null) button.disabled = true;
    else button.addEventListener("click", () => onSelect(w, shownWalk));
    li.append(button);
    return li;
  }

  return {
    show(walk, view) {
      // A bug-lab walk says that its gradients are wrong on purpose once, first in the Done
      // narration (narration.js, bugs.js bugDoneText), where the lecturer reads: not here too.
      const list = walk ? warningsAt(walk.trace.warnings, view) : [];
      const next = JSON.stringify(list);
      shownWalk = walk;
      if (next === key) return;
      key = next;
      strip.replaceChildren(...list.map(item));
      strip.hidden = !list.length;
      strip.dataset.count = String(list.length);
    },
  };
}
