// Groups in the SVG (issue 8, section 2): a collapsed group is one box (g.group carrying
// data-group and data-group-name, as a node carries data-node) with its name, inputs,
// outputs and each output's adjoint (its own symbol); an open group is a light frame with its
// name and a collapse control. A click (or Enter) on a box opens it, on the control closes
// it: `onToggle(gid, open)`; the page lays the graph out again. A step restyles only the
// boxes holding what it changed. The logic is ../groups.js's.

import * as d3 from "d3";
import { formatValue, fullPrecision } from "../format.js";
import { adjointLines, BOX, boxText, clip, superscriptRuns } from "../groups.js";

const KIND = { block: "group", repeat: "repeat", statement: "statement", part: "part" };

/**
 * Set `el`'s (an SVG <text>) text to `text`, superscript runs (x⁽²⁴⁹⁷⁾'s version) drawn as
 * raised plain digits in a tspan.sup (graph-groups.css sizes them): superscript glyphs are
 * about half the font's size, too small to read on a projector.
 */
export function setRuns(el, text) {
  const runs = superscriptRuns(text);
  if (runs.length === 1 && !runs[0].sup) {
    el.textContent = text;
    return;
  }
  el.textContent = "";
  for (const run of runs) {
    const span = el.appendChild(document.createElementNS("http://www.w3.org/2000/svg", "tspan"));
    if (run.sup) {
      span.setAttribute("class", "sup");
      span.setAttribute("baseline-shift", "35%");
    }
    span.textContent = run.text;
  }
}

/**
 * A `g.at` in each element of `g` (a selection of layout boxes {x, y}), translated to the
 * box's centre; the caller draws the box's parts in it. The outer element carries no
 * transform on purpose: Chromium skips painting an SVG element that is off screen only when
 * the element itself has no transform (its cull rect does not cross transforms), so a step
 * that changes one box repaints what is on screen, not all 1,000 boxes (40 ms a frame).
 */
export function placed(g) {
  return g.append("g").attr("class", "at").attr("transform", (d) => `translate(${d.x},${d.y})`);
}

/** Frames of the open groups (layout.frames) in `layer`, outermost first (drawn behind). */
export function drawFrames(layer, frames, { onToggle } = {}) {
  const g = layer.selectAll(null).data(frames).enter().append("g")
    .attr("class", (d) => `frame kind-${d.kind}`)
    .attr("data-frame", (d) => d.id)
    .attr("data-group-name", (d) => d.name)
    .attr("transform", (d) => `translate(${d.x - d.width / 2},${d.y - d.height / 2})`);
  g.append("rect").attr("class", "frame-box").attr("width", (d) => d.width).attr("height", (d) => d.height).attr("rx", 14);
  g.append("text").attr("class", "frame-name").attr("x", 34).attr("y", 17).text((d) => clip(d.name, 48));
  const toggle = g.append("g").attr("class", "frame-toggle")
    .attr("role", "button").attr("tabindex", 0)
    .attr("aria-label", (d) => `Collapse ${KIND[d.kind]} ${d.name}`)
    .attr("transform", "translate(6,3)")
    .on("click", (event, d) => {
      event.stopPropagation();
      onToggle?.(d.id, false);
    })
    .on("keydown", (event, d) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      event.stopPropagation();
      onToggle?.(d.id, false);
    });
  toggle.append("rect").attr("width", 22).attr("height", 20).attr("rx", 4);
  toggle.append("text").attr("x", 11).attr("y", 10).attr("text-anchor", "middle").attr("dominant-baseline", "central").text("−");
  toggle.append("title").text((d) => `Collapse ${d.name}`);
}

/** The boxes of collapsed groups (layout nodes whose node is a groups.js box) in `layer`. */
export function drawBoxes(layer, list, { onToggle, onHover } = {}) {
  const open = (event, d) => {
    event.stopPropagation();
    onToggle?.(d.id, true);
  };
  const g = layer.selectAll(null).data(list).enter().append("g")
    .attr("class", (d) => `group kind-${d.node.kind} pending`)
    .attr("data-group", (d) => d.id)
    .attr("data-group-name", (d) => d.node.name)
    .attr("data-count", (d) => d.node.count)
    .attr("tabindex", 0)
    .attr("role", "button")
    .attr("aria-expanded", "false")
    .attr("aria-label", (d) => `${KIND[d.node.kind]} ${d.node.name}, ${d.node.count} nodes, collapsed; Enter expands it`)
    .on("click", open)
    .on("keydown", (event, d) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      open(event, d);
    })
    .on("mouseenter focus", (_, d) => onHover?.(d.node))
    .on("mouseleave blur", () => onHover?.(null));
  const at = placed(g);
  const left = (d) => -d.width / 2 + BOX.pad;
  const top = (d) => -d.height / 2;
  // Two frames, slightly offset: a stack of boxes, as TensorBoard draws a name scope.
  at.append("rect").attr("class", "group-shadow")
    .attr("x", (d) => -d.width / 2 + 5).attr("y", (d) => -d.height / 2 + 5)
    .attr("width", (d) => d.width).attr("height", (d) => d.height).attr("rx", 12);
  at.append("rect").attr("class", "box")
    .attr("x", (d) => -d.width / 2).attr("y", (d) => -d.height / 2)
    .attr("width", (d) => d.width).attr("height", (d) => d.height).attr("rx", 12);
  at.append("text").attr("class", "label").attr("x", left).attr("y", (d) => top(d) + 25)
    .text((d) => `▸ ${clip(d.node.name, BOX.maxName)}`); // the name as given
  at.append("line").attr("class", "rule")
    .attr("x1", (d) => -d.width / 2).attr("x2", (d) => d.width / 2)
    .attr("y1", (d) => top(d) + BOX.header).attr("y2", (d) => top(d) + BOX.header);
  at.each(function (d) {
    const lines = boxText(d.node);
    const sel = d3.select(this);
    lines.forEach((text, i) => {
      const line = sel.append("text").attr("class", i >= 3 ? "group-adjoint" : `group-line line-${i}`)
        .attr("x", left(d)).attr("y", top(d) + BOX.header + (i + 1) * BOX.row - 7);
      setRuns(line.node(), text);
    });
  });
  g.append("title").text((d) => `${d.node.name}: ${d.node.count} nodes. Click to expand.`);
}

/** Element index of the boxes drawn for `layout`: gid -> g.group. */
const indexes = new WeakMap();
function boxIndex(root, layout) {
  let index = indexes.get(layout);
  if (!index || !index.size || !root.contains(index.values().next().value)) {
    index = new Map([...root.querySelectorAll("g.group[data-group]")].map((e) => [e.dataset.group, e]));
    indexes.set(layout, index);
  }
  return index;
}

/**
 * Restyle the boxes of `layout` for `view`: those holding a node of `changed.nodes`, or all
 * when `changed` is null. A box is current / source / target when the step's node is in it,
 * pending until its outputs are evaluated, has-grad once the backward pass reaches one.
 * Returns how many boxes it restyled.
 */
export function showBoxes(root, layout, view, focus, changed) {
  if (!layout.rep?.size) return 0;
  const index = boxIndex(root, layout);
  if (!index.size) return 0;
  const boxOfNode = (id) => layout.rep.get(id);
  const ids = changed ? new Set([...changed.nodes].map(boxOfNode).filter(Boolean)) : new Set(index.keys());
  const roles = { current: boxOfNode(focus.current), source: boxOfNode(focus.source), target: boxOfNode(focus.target) };
  const { values, adjoints } = view;
  let count = 0;
  for (const gid of ids) {
    const el = index.get(gid);
    if (!el) continue;
    const box = el.__data__.node;
    const reached = box.outputs.filter((id) => adjoints[id] !== undefined);
    el.classList.toggle("pending", !box.outputs.some((id) => id in values));
    el.classList.toggle("has-grad", reached.length > 0);
    for (const [cls, at] of Object.entries(roles)) el.classList.toggle(cls, at === gid);
    // data-adjoint: the first output's adjoint (full precision); data-adjoints: each output's.
    if (reached.length) el.setAttribute("data-adjoint", fullPrecision(adjoints[box.outputs[0]]) ?? "");
    else el.removeAttribute("data-adjoint");
    if (box.outputs.length > 1 && reached.length) {
      el.setAttribute("data-adjoints", JSON.stringify(box.outputs.map((id) => fullPrecision(adjoints[id]))));
    } else el.removeAttribute("data-adjoints");
    const lines = adjointLines(box, adjoints, formatValue);
    el.querySelectorAll("text.group-adjoint").forEach((t, i) => setRuns(t, lines[i] ?? ""));
    count += 1;
  }
  return count;
}

/** The drawn edge of `edgeId` in `layout` (a merged edge into or out of a box), or itself. */
export function drawnEdge(layout, edgeId) {
  return layout.alias?.get(edgeId) ?? edgeId;
}
