// The computation graph in SVG. `drawGraph` builds the picture once per graph from the
// layout; `showView` restyles it for one step of the timeline (classes, text, data-*
// attributes, a pulse along the edge the gradient just travelled) and never moves a box.
// Both take the root <svg> and their data, so the same code can run in an embed. The
// drawing sits in `g.viewport`, which render/zoom.js pans and scales.

import * as d3 from "d3";
import { boxLines, formatValue, fullPrecision } from "../format.js";
import { calloutSize, METRICS, opTag, placeCallout } from "../layout.js";
import { calloutOf } from "../narration.js";
import { heatShell, showHeat } from "./heatmap.js";
import { focusOf } from "../timeline.js";

const line = d3.line().x((p) => p.x).y((p) => p.y).curve(d3.curveBasis);

// ---------------------------------------------------------------- drawing, once per graph

function defs(svg) {
  const d = svg.append("defs");
  for (const [id, cls] of [["arrow", "arrow"], ["arrow-grad", "arrow grad"]]) {
    d.append("marker")
      .attr("id", id).attr("class", cls)
      .attr("viewBox", "0 0 10 10").attr("refX", 9).attr("refY", 5)
      .attr("markerUnits", "userSpaceOnUse") // a thick active edge keeps a normal arrow
      .attr("markerWidth", 16).attr("markerHeight", 16)
      .attr("orient", "auto-start-reverse")
      .append("path").attr("d", "M0,0 L10,5 L0,10 z");
  }
  const glow = d.append("filter").attr("id", "glow").attr("x", "-100%").attr("y", "-100%")
    .attr("width", "300%").attr("height", "300%");
  glow.append("feGaussianBlur").attr("stdDeviation", 4).attr("result", "blur");
  const merge = glow.append("feMerge");
  merge.append("feMergeNode").attr("in", "blur");
  merge.append("feMergeNode").attr("in", "SourceGraphic");
}

/** The fixed parts of one node box: frame, label, op tag, and empty number lines. */
function nodeShell(g) {
  const m = METRICS;
  // Drawn around the box when Tab has brought the focus to the node (app.css).
  g.append("rect").attr("class", "focus-ring")
    .attr("x", (d) => -d.width / 2 - 7).attr("y", (d) => -d.height / 2 - 7)
    .attr("width", (d) => d.width + 14).attr("height", (d) => d.height + 14)
    .attr("rx", 14);
  g.append("rect").attr("class", "box")
    .attr("x", (d) => -d.width / 2).attr("y", (d) => -d.height / 2)
    .attr("width", (d) => d.width).attr("height", (d) => d.height)
    .attr("rx", 10);
  const left = (d) => -d.width / 2 + m.pad;
  const top = (d) => -d.height / 2;
  g.append("text").attr("class", "label")
    .attr("x", left).attr("y", (d) => top(d) + 27)
    .text((d) => d.node.label);
  g.append("text").attr("class", "tag")
    .attr("x", (d) => d.width / 2 - m.pad).attr("y", (d) => top(d) + 25)
    .attr("text-anchor", "end")
    .text((d) => opTag(d.node));
  g.append("line").attr("class", "rule")
    .attr("x1", (d) => -d.width / 2).attr("x2", (d) => d.width / 2)
    .attr("y1", (d) => top(d) + m.header).attr("y2", (d) => top(d) + m.header);
  const blockTop = (d, i) => top(d) + m.header + i * ((d.block ?? d.rows * m.row) + m.gap);
  for (const [i, kind] of ["value", "grad"].entries()) {
    const block = g.filter((d) => kind === "value" || d.node.role !== "const")
      .append("g").attr("class", `${kind}-block`)
      .attr("transform", (d) => `translate(${left(d)},${blockTop(d, i)})`);
    block.append("text").attr("class", "caption").attr("y", m.row - 6).text(kind);
    block.append("g").attr("class", "nums");
    block.call(heatShell);
  }
}

function edgeShell(g) {
  g.append("path").attr("class", "edge-line")
    .attr("d", (d) => line(d.points))
    .attr("marker-end", "url(#arrow)");
  // A tensor's edge carries its shape, on a patch of paper so it reads over the line.
  const label = g.filter((d) => d.label).append("g").attr("class", "edge-shape")
    .attr("transform", (d) => `translate(${d.label.x},${d.label.y})`)
    .attr("data-shape", (d) => d.label.text);
  label.append("rect").attr("x", (d) => -(d.label.text.length * 9 + 10) / 2).attr("y", -10)
    .attr("width", (d) => d.label.text.length * 9 + 10).attr("height", 20).attr("rx", 4);
  label.append("text").attr("text-anchor", "middle").attr("dominant-baseline", "central")
    .text((d) => d.label.text);
}

/** Remove the picture from the <svg> `root`. */
export function clearGraph(root) {
  d3.select(root).selectAll("*").interrupt().remove();
}

/**
 * Build the picture of `layout` in the <svg> `root`, replacing whatever it showed. The
 * drawing is in layout units inside `g.viewport`; the camera (render/zoom.js) places it.
 */
export function drawGraph(root, layout, { outputId, onHover } = {}) {
  clearGraph(root);
  // A group of focusable nodes (role "img" would hide them from assistive technology).
  const svg = d3.select(root).attr("role", "group");
  defs(svg);
  const world = svg.append("g").attr("class", "viewport")
    .append("g").attr("class", "world");

  world.append("g").attr("class", "edges")
    .selectAll("g.edge")
    .data(layout.edges, (d) => d.id)
    .join((enter) => enter.append("g").attr("class", "edge").attr("data-edge", (d) => d.id).call(edgeShell));

  world.append("g").attr("class", "nodes")
    .selectAll("g.node")
    .data(layout.nodes, (d) => d.id)
    .join((enter) => enter.append("g").call(nodeShell))
    .attr("class", (d) => `node role-${d.node.role}${d.id === outputId ? " output" : ""}`)
    .attr("data-node", (d) => d.id)
    .attr("data-name", (d) => d.node.label)
    .attr("transform", (d) => `translate(${d.x},${d.y})`)
    // Every node is reachable by Tab, named by its formula and numbers (showView), and
    // Enter pins it as a click does.
    .attr("tabindex", 0)
    .attr("role", "button")
    .attr("aria-label", (d) => nodeName(d.node, undefined, undefined))
    .on("mouseenter focus", (_, d) => onHover?.(d.node))
    .on("mouseleave blur", () => onHover?.(null))
    .on("click", (_, d) => onHover?.(d.node, { pin: true }))
    .on("keydown", (event, d) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      onHover?.(d.node, { pin: true });
    });

  world.append("g").attr("class", "callouts");
  world.append("g").attr("class", "pulses");
}

// ---------------------------------------------------------------- one step of the timeline

/**
 * A node's accessible name at a step: its formula and what it holds, e.g.
 * "e = a * b, value -0.5, gradient 1.5729"; `value` / `adjoint` undefined while not yet
 * computed. Constants have no gradient to speak of.
 */
export function nodeName(node, value, adjoint) {
  const parts = [node.formula ?? node.label];
  parts.push(value === undefined ? "not evaluated yet" : `value ${formatValue(value)}`);
  if (node.role !== "const") parts.push(adjoint === undefined ? "no gradient yet" : `gradient ${formatValue(adjoint)}`);
  return parts.join(", ");
}

function showNumbers(block, values) {
  block.select("g.nums").selectAll("text")
    .data((d) => boxLines(values[d.id], d.rows, METRICS.maxInlineElements), (_, i) => i)
    .join("text")
    .attr("x", METRICS.caption)
    .attr("y", (_, i) => METRICS.row - 6 + i * METRICS.row)
    .text((s) => s);
}

function showCallout(world, layout, event) {
  const note = calloutOf(event);
  const at = note && placeCallout(layout, note.id, calloutSize(note.lines));
  const data = at ? [{ ...note, ...at }] : [];
  const callout = world.select("g.callouts").selectAll("g.callout")
    .data(data, (d) => d.id)
    .join((enter) => {
      const g = enter.append("g").attr("class", "callout");
      g.append("rect").attr("rx", 8);
      g.append("text").attr("text-anchor", "middle");
      return g;
    })
    .attr("transform", (d) => `translate(${d.x},${d.y})`)
    .style("opacity", null); // a landing pulse may have hidden it
  const lineHeight = 1.25 * METRICS.calloutFont;
  callout.select("text")
    .selectAll("tspan")
    .data((d) => d.lines)
    .join("tspan")
    .attr("x", 0)
    .attr("y", (_, i, all) => (i - (all.length - 1) / 2) * lineHeight)
    .attr("dominant-baseline", "central")
    .text((s) => s);
  // Size the frame to the text the browser actually drew.
  callout.each(function () {
    const box = this.querySelector("text").getBBox();
    d3.select(this).select("rect")
      .attr("x", box.x - METRICS.calloutPad).attr("y", box.y - 4)
      .attr("width", box.width + 2 * METRICS.calloutPad).attr("height", box.height + 8);
  });
}

/** A dot that travels along `edgeId` from the consumer back to the input. */
function pulse(world, edgeId, duration) {
  const path = world.select(`g.edge[data-edge="${CSS.escape(edgeId)}"] path.edge-line`).node();
  if (!path) return;
  const length = path.getTotalLength();
  const at = (t) => path.getPointAtLength(length * (1 - t));
  const start = at(0);
  world.select("g.pulses").append("circle")
    .attr("class", "pulse").attr("r", 12).attr("filter", "url(#glow)")
    .attr("cx", start.x).attr("cy", start.y)
    .transition().duration(duration).ease(d3.easeCubicInOut)
    .attrTween("cx", () => (t) => at(t).x)
    .attrTween("cy", () => (t) => at(t).y)
    .transition().duration(250).attr("r", 22).style("opacity", 0)
    .remove();
}

/**
 * Show `view` (a timeline view) on a graph drawn by drawGraph. With `animate` the current
 * accumulate event sends a pulse along its edge, lasting `duration` ms, and the input's
 * grad shows its old value until the pulse lands. The data-* attributes never wait.
 */
export function showView(root, layout, view, { animate = false, duration = 600, nonFinite = null } = {}) {
  const world = d3.select(root).select("g.world");
  const focus = focusOf(view.event);
  const { values, adjoints } = view;
  const landing = animate && view.event?.kind === "accumulate" ? view.event : null;
  world.selectAll("g.node, g.callout").interrupt("land");

  const nodes = world.selectAll("g.node")
    .classed("pending", (d) => !(d.id in values))
    .classed("has-grad", (d) => d.id in adjoints)
    .classed("current", (d) => d.id === focus.current)
    .classed("source", (d) => d.id === focus.source)
    .classed("target", (d) => d.id === focus.target)
    .classed("final", view.phase === "done")
    .attr("data-value", (d) => fullPrecision(values[d.id]))
    .attr("data-adjoint", (d) => fullPrecision(adjoints[d.id]))
    .attr("aria-label", (d) => nodeName(d.node, values[d.id], adjoints[d.id]));
  showNumbers(nodes.select("g.value-block"), values);
  const before = landing ? { ...adjoints, [landing.input]: landing.adjoint_before } : adjoints;
  showNumbers(nodes.select("g.grad-block"), before);
  showHeat(nodes.select("g.value-block"), values, "value");
  showHeat(nodes.select("g.grad-block"), before, "grad");
  // The first value or adjoint that is not finite (the done event names it), once on screen.
  const bad = nonFinite && ((nonFinite.phase === "forward" ? values : adjoints)[nonFinite.node] !== undefined)
    && view.step >= nonFinite.step ? nonFinite.node : null;
  nodes.classed("non-finite", (d) => d.id === bad);

  world.selectAll("g.edge")
    .classed("carried", (d) => Boolean(view.carried[d.id]))
    .classed("active", (d) => d.id === focus.edge)
    .select("path.edge-line")
    .attr("marker-start", (d) => (view.carried[d.id] ? "url(#arrow-grad)" : null));

  showCallout(world, layout, view.event);
  // d3.interrupt (not selection.interrupt) also makes the bundler keep d3-transition.
  world.select("g.pulses").selectAll("*").each(function () { d3.interrupt(this); }).remove();
  if (!landing) return;
  pulse(world, focus.edge, duration);
  const callout = world.select("g.callouts").selectAll("g.callout").style("opacity", 0);
  callout.transition("land").delay(duration).duration(150).style("opacity", 1);
  nodes.filter((d) => d.id === landing.input)
    .transition("land").delay(duration)
    .on("start", function () {
      const block = d3.select(this).select("g.grad-block");
      showNumbers(block, adjoints);
      showHeat(block, adjoints, "grad");
    });
}
