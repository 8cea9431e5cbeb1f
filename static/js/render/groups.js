// Groups in the SVG (issue 8, section 2): a collapsed group is one box (g.group carrying
// data-group and data-group-name, as a node carries data-node) with its name, inputs,
// outputs and the summed adjoint of its outputs; an open group is a light frame with its
// name and a collapse control. A click (or Enter) on a box opens it, on the control closes
// it: `onToggle(gid, open)`; the page lays the graph out again. A step restyles only the
// boxes holding what it changed. The logic is ../groups.js's.

import * as d3 from "d3";
import { formatValue, fullPrecision } from "../format.js";
import { BOX, boxText, clip, summedAdjoint } from "../groups.js";

const KIND = { block: "group", repeat: "repeat", statement: "statement" };

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
    .text((d) => `▸ ${clip(d.node.name, BOX.maxName)}`);
  at.append("line").attr("class", "rule")
    .attr("x1", (d) => -d.width / 2).attr("x2", (d) => d.width / 2)
    .attr("y1", (d) => top(d) + BOX.header).attr("y2", (d) => top(d) + BOX.header);
  at.each(function (d) {
    const lines = boxText(d.node);
    const sel = d3.select(this);
    lines.forEach((text, i) => {
      sel.append("text").attr("class", i === lines.length - 1 ? "group-adjoint" : `group-line line-${i}`)
        .attr("x", left(d)).attr("y", top(d) + BOX.header + (i + 1) * BOX.row - 5)
        .text(text);
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

/** The adjoint line of a box: its one output's adjoint, or the sum over its outputs. */
function adjointLine(box, summed) {
  const what = box.outputs.length > 1 ? "Σ ā outputs" : "ā";
  if (!summed) return `${what}  —`;
  const part = summed.reached < summed.of ? ` (${summed.reached}/${summed.of})` : "";
  return `${what} = ${formatValue(summed.value)}${part}`;
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
    const summed = summedAdjoint(box.outputs, adjoints);
    el.classList.toggle("pending", !box.outputs.some((id) => id in values));
    el.classList.toggle("has-grad", Boolean(summed));
    for (const [cls, at] of Object.entries(roles)) el.classList.toggle(cls, at === gid);
    if (summed) el.setAttribute("data-adjoint", fullPrecision(summed.value));
    else el.removeAttribute("data-adjoint");
    el.querySelector("text.group-adjoint").textContent = adjointLine(box, summed);
    count += 1;
  }
  return count;
}

/** The drawn edge of `edgeId` in `layout` (a merged edge into or out of a box), or itself. */
export function drawnEdge(layout, edgeId) {
  return layout.alias?.get(edgeId) ?? edgeId;
}
