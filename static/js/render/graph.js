// The computation graph in SVG. `drawGraph` builds the picture once per graph from the
// layout; `showView` restyles it for one step of the timeline (classes, text, data-*
// attributes, a pulse along the edge the gradient just travelled) and never moves a box.
// Both take the root <svg> and their data, so the same code can run in an embed. The
// drawing sits in `svg.camera > g.viewport`; render/zoom.js pans and scales it (viewBox).
// A step restyles only what it changes (`changed`, from the timeline): at 1,000 nodes a
// step touches a handful of elements, not every box. Leaves and constants with many uses
// are drawn as reference chips beside their consumers (layout.js referenceNodes).

import * as d3 from "d3";
import { boxLines, formatValue, fullPrecision } from "../format.js";
import { calloutAnchor, calloutSize, chipOf, METRICS, opTag, placeCallout } from "../layout.js";
import { calloutOf } from "../narration.js";
import { drawBoxes, drawFrames, drawnEdge, placed, showBoxes } from "./groups.js";
import { heatShell, showHeat } from "./heatmap.js";
import { focusOf } from "../timeline.js";

const CUT_OPS = new Set(["detach", "stop_gradient"]); // engine/ops/cut.py

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
    .attr("x", (d) => -d.width / 2 - m.ring).attr("y", (d) => -d.height / 2 - m.ring)
    .attr("width", (d) => d.width + 2 * m.ring).attr("height", (d) => d.height + 2 * m.ring)
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

// root <svg> -> {nodes, edges, chips: Map id -> element, refs: Map ref id -> chip elements}
const indexes = new WeakMap();
// root <svg> -> the restyle going on a part a frame (restyleInParts), if any.
const restyling = new WeakMap();

/** Remove the picture from the <svg> `root`. */
export function clearGraph(root) {
  d3.select(root).selectAll("*").interrupt().remove();
  indexes.delete(root);
  restyling.get(root)?.stop();
  restyling.delete(root);
  delete root.dataset.fanout;
}

/** A reference chip: the shared node's name in a small box, and a stub to its consumer. */
function chipShell(g) {
  g.append("line").attr("class", "chip-stub")
    .attr("x1", (d) => d.width / 2).attr("x2", (d) => d.width / 2 + 10).attr("y1", 0).attr("y2", 0);
  g.append("rect").attr("class", "chip-box")
    .attr("x", (d) => -d.width / 2).attr("y", (d) => -d.height / 2)
    .attr("width", (d) => d.width).attr("height", (d) => d.height).attr("rx", 6);
  g.append("text").attr("class", "chip-label")
    .attr("text-anchor", "middle").attr("dominant-baseline", "central")
    .text((d) => d.label);
  g.append("title").text((d) => `${d.label}: shared by ${d.uses} uses; click to show them all`);
}

function indexOf(root) {
  let index = indexes.get(root);
  if (index) return index;
  const map = (selector, key) => new Map([...root.querySelectorAll(selector)].map((e) => [e.getAttribute(key), e]));
  const chips = map("g.chip", "data-edge");
  const refs = new Map();
  for (const chip of chips.values()) {
    const ref = chip.getAttribute("data-ref");
    if (!refs.has(ref)) refs.set(ref, []);
    refs.get(ref).push(chip);
  }
  index = { nodes: map("g.node", "data-node"), edges: map("g.edge", "data-edge"), chips, refs };
  indexes.set(root, index);
  return index;
}

/**
 * Build the picture of `layout` in the <svg> `root`, replacing whatever it showed. The
 * drawing is in layout units inside `g.viewport`; the camera (render/zoom.js) places it
 * with the viewBox of the svg.camera around it.
 * `onChip(chip)` is called when a reference chip is clicked, `onGroup(gid, open)` when a
 * collapsed group's box (render/groups.js) or an open group's collapse control is.
 */
export function drawGraph(root, layout, options = {}) {
  const draw = beginDrawing(root, layout, options);
  draw.edges(layout.edges);
  draw.nodes(layout.nodes);
  draw.chips(layout.chips ?? []);
  draw.end();
}

/**
 * drawGraph a part at a time: at most `batch` elements, then `pause()` (a promise: the
 * page waits for the next frame), so a big drawing never makes one long task of the
 * browser's style and layout work. Stops (resolves false) when `cancelled()` turns true.
 * `onStart()` is called once the empty drawing (g.viewport) is there.
 */
export async function drawGraphGradually(root, layout, options = {}, { batch = 80, pause, cancelled = () => false, onStart } = {}) {
  const draw = beginDrawing(root, layout, options);
  onStart?.(); // e.g. place the camera now, before any box is drawn
  const parts = [[draw.edges, layout.edges], [draw.nodes, layout.nodes], [draw.chips, layout.chips ?? []]];
  for (const [fn, list] of parts) {
    // An edge is one path: more of them fit in a batch than of node boxes.
    const size = fn === draw.nodes ? batch : 4 * batch;
    for (let i = 0; i < list.length; i += size) {
      fn(list.slice(i, i + size));
      await pause();
      if (cancelled()) return false;
    }
  }
  draw.end();
  return true;
}

/**
 * Where the drawing goes in the root svg `svg`: an <svg class="drawing"> in an HTML
 * div.camera that render/zoom.js moves with a CSS transform, in a foreignObject filling
 * the root. Why not a transform on a <g> around the drawing: Chromium then paints every
 * element of the drawing whenever one changes (it does not cull SVG content under a
 * transformed <g>): 30-40 ms a step at 1,000 boxes. Nor the svg's viewBox: each change of
 * it lays out all of the text again (80 ms at 1,000 boxes). Under a CSS transform of an
 * HTML element the inner svg paints only what is on screen, and text is laid out once.
 */
function cameraFrame(svg) {
  return svg.append("foreignObject").attr("class", "camera-frame")
    .attr("x", 0).attr("y", 0).attr("width", "100%").attr("height", "100%")
    .append("xhtml:div").attr("class", "camera")
    .style("transform-origin", "0 0").style("width", "0").style("height", "0")
    .append("svg").attr("class", "drawing")
    .attr("width", 1).attr("height", 1)
    .style("overflow", "visible").style("display", "block");
}

/** The empty drawing, and functions that add edges, nodes and chips to it, then end it. */
function beginDrawing(root, layout, { outputId, onHover, onChip, onGroup } = {}) {
  clearGraph(root);
  // A group of focusable nodes (role "img" would hide them from assistive technology).
  const svg = d3.select(root).attr("role", "group");
  defs(svg);
  const world = cameraFrame(svg).append("g").attr("class", "viewport")
    .append("g").attr("class", "world");
  const layers = Object.fromEntries(["frames", "edges", "nodes", "chips", "fanout-lines", "callouts", "pulses"]
    .map((name) => [name, world.append("g").attr("class", name)]));
  // Open groups' frames (a few), behind everything: drawn at once.
  drawFrames(layers.frames, layout.frames ?? [], { onToggle: onGroup });
  const uses = new Map((layout.chips ?? []).map((c) => [c.ref, c.uses]));

  // An edge into detach(x) / stop_gradient(x) is cut: no gradient crosses it (the bug lab).
  const cuts = new Set(layout.nodes.filter((n) => CUT_OPS.has(n.node.op)).map((n) => n.id));
  // An edge marked grad: false carries data the op reads (cross_entropy's targets held by a
  // name): the reader sees where y goes, dotted, as no gradient goes back along it.
  const edges = (list) => layers.edges.selectAll(null).data(list).enter()
    .append("g").attr("class", "edge").attr("data-edge", (d) => d.id)
    .classed("cut", (d) => cuts.has(d.target)).classed("data", (d) => d.grad === false)
    .call(edgeShell);

  const nodes = (all) => {
    // A collapsed group's box is drawn by render/groups.js.
    const boxes = all.filter((d) => d.node.group);
    if (boxes.length) drawBoxes(layers.nodes, boxes, { onToggle: onGroup, onHover });
    const list = boxes.length ? all.filter((d) => !d.node.group) : all;
    const g = layers.nodes.selectAll(null).data(list).enter().append("g")
      .attr("class", (d) => `node role-${d.node.role}${d.id === outputId ? " output" : ""}`)
      .attr("data-node", (d) => d.id)
      .attr("data-name", (d) => d.node.label)
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
    const at = placed(g).call(nodeShell);
    // A shared leaf or constant (drawn as chips beside its consumers) says how often.
    g.filter((d) => uses.has(d.id))
      .classed("shared", true)
      .attr("data-uses", (d) => uses.get(d.id));
    at.filter((d) => uses.has(d.id))
      .append("text").attr("class", "uses")
      .attr("x", (d) => d.width / 2).attr("y", (d) => d.height / 2 + 20).attr("text-anchor", "end")
      .text((d) => `used ${uses.get(d.id).toLocaleString("en-US")}× (chips)`);
  };

  // Reference chips: a shared leaf's or constant's edge, drawn beside its consumer.
  const chips = (list) => placed(layers.chips.selectAll(null).data(list).enter()
    .append("g")
    .attr("class", "chip")
    .attr("data-edge", (d) => d.id)
    .attr("data-ref", (d) => d.ref)
    .attr("data-consumer", (d) => d.consumer)
    .attr("data-uses", (d) => d.uses)
    .on("click", (event, d) => {
      event.stopPropagation();
      onChip?.(d);
    })).call(chipShell);

  return { edges, nodes, chips, end: () => indexes.delete(root) };
}

/**
 * Show (or, with `ref` null, hide) the fan-out of a shared node `ref`: a dashed line from
 * its box to each of its chips, the node and its chips highlighted; the svg's data-fanout
 * names it.
 */
export function showFanout(root, layout, ref) {
  const world = d3.select(root).select("g.world");
  const chips = ref ? (layout.chips ?? []).filter((c) => c.ref === ref) : [];
  const from = ref ? layout.nodes.find((n) => n.id === ref) : null;
  if (ref && from) root.dataset.fanout = ref;
  else delete root.dataset.fanout;
  world.selectAll("g.chip").classed("fanout", (d) => d.ref === ref);
  world.selectAll("g.node.shared").classed("fanout", (d) => d.id === ref);
  world.select("g.fanout-lines").selectAll("line")
    .data(from ? chips : [], (d) => d.id)
    .join("line")
    .attr("x1", from ? from.x + from.width / 2 : 0).attr("y1", from ? from.y : 0)
    .attr("x2", (d) => d.x - d.width / 2).attr("y2", (d) => d.y);
}

// ---------------------------------------------------------------- one step of the timeline

/**
 * A node's accessible name at a step: its formula and what it holds, e.g.
 * "e = a * b, value -0.5, gradient 1.5729"; `value` / `adjoint` undefined while not yet
 * computed. Constants have no gradient to speak of. In forward mode (no gradient, a `tangent`)
 * it names the tangent instead: "t = tanh(d), value 0.4621, tangent 0.3932".
 */
export function nodeName(node, value, adjoint, tangent) {
  const parts = [node.formula ?? node.label];
  parts.push(value === undefined ? "not evaluated yet" : `value ${formatValue(value)}`);
  if (node.role !== "const" && adjoint === undefined && tangent !== undefined) parts.push(`tangent ${formatValue(tangent)}`);
  else if (node.role !== "const") parts.push(adjoint === undefined ? "no gradient yet" : `gradient ${formatValue(adjoint)}`);
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

function showCallout(world, layout, event, nodesById = null) {
  let note = calloutOf(event);
  const box = note && layout.rep?.get(note.id); // a node inside a collapsed group: its box
  // On a box the note names the node inside it that the contribution reached ("h̄ += ...").
  const symbol = box && (nodesById?.[note.id]?.adjoint_symbol ?? nodesById?.[note.id]?.label);
  if (symbol) note = { ...note, lines: [`${symbol} ${note.lines[0]}`, ...note.lines.slice(1)] };
  const size = note && calloutSize(note.lines);
  const anchor = calloutAnchor(layout, event) ?? (box ? layout.nodes.find((n) => n.id === box) : null);
  const at = note && placeCallout(layout, note.id, size, anchor);
  const data = at ? [{ ...note, ...at, size }] : [];
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
  // The frame is sized from the text's characters (monospace), never measured: measuring
  // (getBBox) would make the browser lay out the whole drawing on every step.
  callout.select("rect")
    .attr("x", (d) => -d.size.width / 2).attr("y", (d) => -d.size.height / 2)
    .attr("width", (d) => d.size.width).attr("height", (d) => d.size.height);
}

/** A dot that travels along `edgeId` from the consumer back to the input. */
function pulse(world, index, edgeId, duration) {
  const path = index.edges.get(edgeId)?.querySelector("path.edge-line");
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
 * No CSS transitions in the drawing for the next `frames` frames (data-jump, app.css): a
 * jump that fades hundreds of boxes at once makes each a layer of its own to composite.
 */
function stillFor(root, frames) {
  root.dataset.jump = "true";
  let left = frames;
  const tick = () => {
    if (--left > 0) return requestAnimationFrame(tick);
    delete root.dataset.jump;
  };
  requestAnimationFrame(tick);
}

// A jump (End, the scrubber) restyles every node: a few hundred boxes a frame, the step's
// own first, so no frame's style and layout work makes a long task. root -> {stop}.
export const RESTYLE_PART = 120;

/**
 * Restyle `nodes` (a selection) with `restyle(selection)`: at once when they are few, else
 * RESTYLE_PART a frame, those in `first` (ids) first. Returns the part restyled at once.
 * The svg's data-restyling is "true" until the last part is done.
 */
function restyleInParts(root, nodes, restyle, first, step) {
  if (nodes.size() <= RESTYLE_PART) {
    restyle(nodes);
    return nodes;
  }
  restyling.get(root)?.stop(); // the same step drawn whole again: this job replaces it
  const list = nodes.nodes().sort((a, b) => first.has(b.__data__.id) - first.has(a.__data__.id));
  const now = d3.selectAll(list.slice(0, RESTYLE_PART));
  restyle(now);
  const job = { stopped: false, step, stop() { this.stopped = true; } };
  restyling.set(root, job);
  root.dataset.restyling = "true";
  let at = RESTYLE_PART;
  const next = () => {
    if (job.stopped) return;
    stillFor(root, 2);
    restyle(d3.selectAll(list.slice(at, at + RESTYLE_PART)));
    at += RESTYLE_PART;
    if (at < list.length) return requestAnimationFrame(next);
    restyling.delete(root);
    root.dataset.restyling = "false";
  };
  requestAnimationFrame(next);
  return now;
}

/**
 * Show `view` (a timeline view) on a graph drawn by drawGraph. With `animate` the current
 * accumulate event sends a pulse along its edge, lasting `duration` ms, and the input's
 * grad shows its old value until the pulse lands. The data-* attributes never wait.
 * `changed` ({nodes, edges}: sets of ids, from timeline.touched plus the focus of the step
 * shown before) restyles only those; null restyles everything. The svg's data-restyled
 * says how many nodes and edges the step restyled. `nodesById` (graph id -> node) lets a
 * callout on a collapsed group's box name the node inside it ("h̄ += ...").
 */
export function showView(root, layout, view, { animate = false, duration = 600, nonFinite = null, changed = null, nodesById = null } = {}) {
  const world = d3.select(root).select("g.world");
  const index = indexOf(root);
  const focus = focusOf(view.event);
  const { values, adjoints } = view;
  // Along a chip the contribution has no edge to travel: it lands at once, on the chip.
  // Into or out of a collapsed group an edge is drawn merged with its siblings (groups.js).
  const drawnFocus = drawnEdge(layout, focus.edge);
  const landing = animate && view.event?.kind === "accumulate" && !chipOf(layout, focus.edge)
    && index.edges.has(drawnFocus) ? view.event : null;
  const pick = (map, ids) => d3.selectAll([...ids].map((id) => map.get(id)).filter(Boolean));
  // A restyle still going on (a jump, a part a frame) is taken over: all of it again.
  const going = restyling.get(root);
  if (going && going.step !== view.step) {
    going.stop();
    restyling.delete(root);
    changed = null;
  }
  world.selectAll("g.callout").interrupt("land");
  if (changed) pick(index.nodes, changed.nodes).interrupt("land");
  else world.selectAll("g.node").interrupt("land");

  // The first value or adjoint that is not finite (the done event names it), once on screen.
  const bad = nonFinite && ((nonFinite.phase === "forward" ? values : adjoints)[nonFinite.node] !== undefined)
    && view.step >= nonFinite.step ? nonFinite.node : null;
  const before = landing ? { ...adjoints, [landing.input]: landing.adjoint_before } : adjoints;
  const restyle = (nodes) => {
    nodes
      .classed("pending", (d) => !(d.id in values))
      .classed("has-grad", (d) => d.id in adjoints)
      .classed("current", (d) => d.id === focus.current)
      .classed("source", (d) => d.id === focus.source)
      .classed("target", (d) => d.id === focus.target)
      .classed("non-finite", (d) => d.id === bad)
      .attr("data-value", (d) => fullPrecision(values[d.id]))
      .attr("data-adjoint", (d) => fullPrecision(adjoints[d.id]))
      .attr("aria-label", (d) => nodeName(d.node, values[d.id], adjoints[d.id], view.tangents?.[d.id]));
    if (!changed) nodes.classed("final", view.phase === "done");
    showNumbers(nodes.select("g.value-block"), values);
    showNumbers(nodes.select("g.grad-block"), before);
    showHeat(nodes.select("g.value-block"), values, "value");
    showHeat(nodes.select("g.grad-block"), before, "grad");
  };
  const all = changed ? pick(index.nodes, changed.nodes) : world.selectAll("g.node");
  if (!changed) stillFor(root, 2);
  const nodes = restyleInParts(root, all, restyle, new Set([focus.current, focus.source, focus.target]), view.step);

  const edgeIds = changed ? (layout.alias?.size ? new Set([...changed.edges].map((id) => drawnEdge(layout, id))) : changed.edges) : null;
  const carried = (d) => Boolean(d.members ? d.members.some((id) => view.carried[id]) : view.carried[d.id]);
  const edges = (edgeIds ? pick(index.edges, edgeIds) : world.selectAll("g.edge"))
    .classed("carried", carried)
    .classed("active", (d) => d.id === drawnFocus);
  edges.select("path.edge-line")
    .attr("marker-start", (d) => (carried(d) ? "url(#arrow-grad)" : null));
  (edgeIds ? pick(index.chips, edgeIds) : world.selectAll("g.chip"))
    .classed("carried", (d) => Boolean(view.carried[d.id]))
    .classed("active", (d) => d.id === focus.edge);
  const boxes = showBoxes(root, layout, view, focus, changed);
  root.dataset.restyled = String(all.size() + edges.size() + boxes);

  showCallout(world, layout, view.event, nodesById);
  // d3.interrupt (not selection.interrupt) also makes the bundler keep d3-transition.
  world.select("g.pulses").selectAll("*").each(function () { d3.interrupt(this); }).remove();
  if (!landing) return;
  pulse(world, index, drawnFocus, duration);
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
